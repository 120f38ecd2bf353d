package hookrun

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Commands are the hook commands, in the order help names them.
var Commands = []string{"inject", "capture", "clear", "approve", "deliver"}

// command reads a hook command's arguments and the environment (lookup)
// and returns its run.
func command(name string, args []string, lookup func(string) (string, bool)) (func(*IO) error, error) {
	if name == "approve" {
		f, err := ParseApprove(args, lookup)
		if err != nil {
			return nil, err
		}
		return func(io *IO) error { return Approve(io, f) }, nil
	}
	run := map[string]func(*IO, *Flags) error{"inject": Inject, "capture": Capture, "clear": Clear, "deliver": Deliver}[name]
	f, err := ParseHook(name, args, lookup)
	if err != nil {
		return nil, err
	}
	return func(io *IO) error { return run(io, f) }, nil
}

// Main is interceptor-hook: it runs the hook command args names on the
// harness and returns the exit code: 0 whatever the hook met (one stderr
// line says what), 1 for a command that is no hook command.
func Main(args []string, io *IO) int {
	if len(args) == 0 || !slices.Contains(Commands, args[0]) {
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprint(io.Out, usage())
			return 0
		}
		// Not 2: a client reads a hook's exit 2 as "block this call".
		fmt.Fprintf(io.Err, "interceptor-hook: want a hook command (%s); the other commands are interceptor's\n", strings.Join(Commands, ", "))
		return 1
	}
	run, err := command(args[0], args[1:], os.LookupEnv)
	if errors.Is(err, ErrHelp) {
		fmt.Fprintf(io.Out, "interceptor-hook %s is interceptor %s, alone in a binary that starts faster. Its flags and help: interceptor %s --help\n", args[0], args[0], args[0])
		return 0
	}
	if err == nil {
		err = run(io)
	}
	if err != nil {
		fmt.Fprintf(io.Err, "interceptor: %s\n", OneLine(err.Error()))
	}
	return 0
}

func usage() string {
	return "interceptor-hook runs interceptor's hook commands (" + strings.Join(Commands, ", ") + ") alone, in a binary\n" +
		"that starts faster: interceptor install writes it into the hooks when it sits beside\n" +
		"interceptor. Each command's flags and help: interceptor COMMAND --help\n"
}

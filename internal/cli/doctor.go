package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/interceptor-dev/interceptor/internal/doctor"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/spf13/cobra"
)

// errReported is returned after doctor printed its problems: the exit code
// is 1, with no further message.
var errReported = errors.New("doctor found problems (the fail lines above)")

func newDoctorCmd(io *IO) *cobra.Command {
	var asJSON bool
	var project string
	var stateDir stateDirFlag
	cmd := &cobra.Command{
		Use:   "doctor [--json] [--project DIR]",
		Short: "Check the installed hooks, " + displays(clientsWhere(func(c *hooks.Client) bool { return c.TrustStep != "" })) + "'s trust in them, and the state dir",
		Long: wrap(`For every client config it can find (your home's and the project dir's),
reports whether interceptor's hooks are installed and complete, whether the
client has the server they name (a typo'd --server: hooks that never fire),
whether they point at an existing binary, which servers run through the
proxy (and whether its binary is there), whether their matchers can match the server's
tools as the client names them, whether servers the client names alike are
refused (--not-server), whether another pre-tool hook fires on the
same tools (in ` + displays(clientsWhere(func(c *hooks.Client) bool { return c.RacesInput })) + `, when two hooks rewrite a call the last
one to finish wins), and whether ` + displays(clientsWhere(func(c *hooks.Client) bool { return c.TrustStep != "" })) + ` trusts the hooks (it skips untrusted
ones silently). Then checks the state dir (owner, modes, no symlinks) and
how many sessions hold tokens, and how old they are.

Exits 1 when something is broken (a "fail" line), else 0. --json prints the
same report as one JSON object.`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := install.EnvFromOS(project)
			if err != nil {
				return err
			}
			dir, err := stateDir.resolve()
			if err != nil {
				return err
			}
			rep := doctor.Run(env, dir, time.Now())
			if asJSON {
				enc := json.NewEncoder(io.Out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				printDoctor(io, rep)
			}
			if !rep.OK {
				return errReported
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&project, "project", "", "the project dir whose configs to check (default: the current dir)")
	stateDir.register(cmd, "the state dir to check")
	return cmd
}

func printDoctor(io *IO, rep doctor.Report) {
	fails := 0
	section := func(title string, findings []doctor.Finding) {
		fmt.Fprintln(io.Out, title)
		for _, f := range findings {
			fmt.Fprintf(io.Out, "  %-4s  %s\n", f.Level, f.Message)
			if f.Level == doctor.Fail {
				fails++
			}
		}
	}
	for _, c := range rep.Clients {
		section(c.Client, c.Findings)
	}
	for _, s := range rep.StateDirs {
		section("state dir "+s.Dir, s.Findings)
	}
	if len(rep.Machine) > 0 {
		section("this machine", rep.Machine)
	}
	if fails > 0 {
		fmt.Fprintf(io.Out, "\n%d problem(s) found\n", fails)
	} else {
		fmt.Fprintln(io.Out, "\nno problems found")
	}
}

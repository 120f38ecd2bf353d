package hookrun

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
)

// EnvPrefix: the flags EnvFlag allows also read INTERCEPTOR_<FLAG>, e.g.
// --state-dir from INTERCEPTOR_STATE_DIR. A flag given on the command line
// wins.
const EnvPrefix = "INTERCEPTOR_"

// EnvFlag says whether an environment variable may set the flag name, in
// every command of every binary (internal/cli's root and interceptor-hook
// ask this one function): where state and the debug log go, the chat a
// child's requests are tagged with, and the handle options users give a
// client's hooks (an OpenCode shim, a hook command shared by clients):
// the entries of HookFlags and carry.Table marked Env. A variable is
// inherited by every process below the shell that set it, child agents
// included, so none of them decides what is approved, allowed or matched
// for approval, turns supervision off, reveals a token or says where a
// token is sent: INTERCEPTOR_APPROVE=1 must not become `children create
// --approve 1` (a regex that lets Bash run unasked), nor INTERCEPTOR_MATCH
// an approve hook's --match. A variable that names any other flag of the
// command being run is refused (ApplyEnv). It goes by name: a name any
// entry marks is allowed wherever a command has a flag of that name (the
// handle options' --arg, approve's --arg too). Both tables are looked
// through (a score of entries) rather than kept in a map a hook would
// build at start-up.
func EnvFlag(name string) bool {
	for i := range HookFlags {
		if HookFlags[i].Name == name && HookFlags[i].Env {
			return true
		}
	}
	// The handle options of inject, capture and clear (proxy takes them
	// too; install writes them into the hooks it installs, and itself reads
	// no variable).
	opt, ok := carry.Lookup(name)
	return ok && opt.Env
}

// EnvFlagNames are the flags EnvFlag allows, sorted.
func EnvFlagNames() []string {
	var names []string
	for i := range HookFlags {
		if HookFlags[i].Env {
			names = append(names, HookFlags[i].Name)
		}
	}
	for i := range carry.Table {
		if carry.Table[i].Env {
			names = append(names, carry.Table[i].Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// EnvName is the variable that may set --flag.
func EnvName(flag string) string {
	var b strings.Builder
	b.Grow(len(EnvPrefix) + len(flag))
	b.WriteString(EnvPrefix)
	for i := 0; i < len(flag); i++ {
		switch c := flag[i]; {
		case c >= 0x80:
			// Not a flag name of ours: as strings.ToUpper reads it.
			return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
		case c == '-':
			b.WriteByte('_')
		case 'a' <= c && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
		default:
			b.WriteByte(c)
		}
	}
	// One allocation: a hook asks for a score of these at every start.
	return b.String()
}

// ApplyEnv fills each of a command's flags (names, in the order they are
// visited, "help" left out) not given on the command line from its
// variable (lookup: os.LookupEnv) when EnvFlag allows it; set parses the
// value as the command line would. A non-empty variable naming another
// of the command's flags, not given on the command line, is refused in
// one error: it would have applied before, and ignoring it silently would
// run the command other than its user expects.
func ApplyEnv(names []string, given func(string) bool, set func(name, value string) error, lookup func(string) (string, bool)) error {
	var errs []error
	var refused, flags []string
	for _, name := range names {
		if given(name) {
			continue
		}
		v, ok := lookup(EnvName(name))
		if !ok {
			continue
		}
		if !EnvFlag(name) {
			if v != "" {
				refused, flags = append(refused, EnvName(name)), append(flags, "--"+name)
			}
			continue
		}
		if err := set(name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %v", EnvName(name), v, err))
		}
	}
	if len(refused) > 0 {
		errs = append(errs, fmt.Errorf("refusing %s: the environment never sets %s (interceptor --help lists the flags it may set); give it on the command line, or unset the variable",
			strings.Join(refused, ", "), strings.Join(flags, ", ")))
	}
	return errors.Join(errs...)
}

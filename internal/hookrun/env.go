package hookrun

import (
	"errors"
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
)

// EnvPrefix: the flags in EnvFlags also read INTERCEPTOR_<FLAG>, e.g.
// --state-dir from INTERCEPTOR_STATE_DIR. A flag given on the command line
// wins.
const EnvPrefix = "INTERCEPTOR_"

// EnvFlags are the only flags an environment variable may set, in every
// command of every binary (internal/cli's root and interceptor-hook read
// this one list): where state and the debug log go, and the handle options
// users give a client's hooks (an OpenCode shim, a hook command shared by
// clients) that carry.Table lets the environment set. A variable is
// inherited by every process below the shell that set it, child agents
// included, so none of them decides what is approved, allowed or matched
// for approval, turns supervision off, reveals a token or says where a
// token is sent: INTERCEPTOR_APPROVE=1 must not become `children create
// --approve 1` (a regex that lets Bash run unasked), nor INTERCEPTOR_MATCH
// an approve hook's --match. A variable that names any other flag of the
// command being run is refused (ApplyEnv).
var EnvFlags = envAllowed()

func envAllowed() map[string]bool {
	allowed := map[string]bool{
		"state-dir": true,
		"debug-log": true,
		"chat":      true, // interceptor children tags a child's requests with it (children.ChatEnv)
	}
	// The handle options of inject, capture and clear (proxy takes them
	// too; install writes them into the hooks it installs, and itself reads
	// no variable).
	for _, opt := range carry.Table {
		if opt.Env {
			allowed[opt.Name] = true
		}
	}
	return allowed
}

// EnvName is the variable that may set --flag.
func EnvName(flag string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// ApplyEnv fills each of a command's flags (names, in the order they are
// visited, "help" left out) not given on the command line from its
// variable (lookup: os.LookupEnv) when EnvFlags allows it; set parses the
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
		if !EnvFlags[name] {
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

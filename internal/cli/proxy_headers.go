package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// headerEnvFlags are HTTP headers for proxy --url whose values the relay
// reads from its environment: a header given whole (--header) is in the
// process's arguments, which every user of the machine can read (ps,
// /proc/PID/cmdline); its environment only its own user can. install
// --proxy moves an entry's headers into the entry's environment and names
// them here.
type headerEnvFlags struct {
	fromEnv []string // "Name=VAR"
	bearer  string   // VAR: Authorization: Bearer $VAR
}

func (h *headerEnvFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&h.fromEnv, "header-env", nil, `HTTP header sent to --url whose value is in an environment variable, "Name=VAR" (repeatable): unlike --header, the value stays out of the process list`)
	fl.StringVar(&h.bearer, "bearer-env", "", "send Authorization: Bearer with the token in this environment variable (what a bearer_token_env_var names)")
}

// headers reads the values; a variable that is not set, or empty, is an
// error naming it (never its value).
func (h *headerEnvFlags) headers(lookup func(string) (string, bool)) ([][2]string, error) {
	var out [][2]string
	get := func(flag, variable string) (string, error) {
		v, ok := lookup(variable)
		if !ok || strings.TrimSpace(v) == "" {
			return "", fmt.Errorf("%s: the environment variable %s is not set", flag, variable)
		}
		return strings.TrimSpace(v), nil
	}
	for _, f := range h.fromEnv {
		name, variable, ok := strings.Cut(f, "=")
		name, variable = strings.TrimSpace(name), strings.TrimSpace(variable)
		if !ok || name == "" || variable == "" {
			return nil, fmt.Errorf(`--header-env %q is not "Name=VAR"`, f)
		}
		v, err := get("--header-env "+f, variable)
		if err != nil {
			return nil, err
		}
		out = append(out, [2]string{name, v})
	}
	if h.bearer != "" {
		v, err := get("--bearer-env", h.bearer)
		if err != nil {
			return nil, err
		}
		out = append(out, [2]string{"Authorization", "Bearer " + v})
	}
	return out, nil
}

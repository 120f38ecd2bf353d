package install

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// ApproveHook is an approve hook found installed for a client: the route
// by which a headless child's tool calls reach the approval queue.
type ApproveHook struct {
	Scope Scope
	Path  string
	// Skipped says why the client will not run it ("" when it will):
	// Codex skips a hook it has not trusted, or that changed since.
	Skipped string
}

// FindApproveHooks lists the approve hooks of client in the configs it
// reads at user scope and at env.Project's project scope (HookFiles), each
// with whether the client runs it.
func FindApproveHooks(env Env, client string) ([]ApproveHook, error) {
	_, c, err := lookup(client)
	if err != nil {
		return nil, err
	}
	var out []ApproveHook
	for _, p := range HookFiles(env, c) {
		data, err := ReadConfig(p.Path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if c.Layout == hooks.Plugin {
			if shim, ok := readShim(string(data)); ok && len(shim.approveArgs) > 0 {
				out = append(out, ApproveHook{Scope: p.Scope, Path: p.Path})
			}
			continue
		}
		found, err := FindHooks(p.Path, data, c)
		if err != nil {
			return nil, err
		}
		for _, h := range found {
			if h.Command.Sub != "approve" {
				continue
			}
			ah := ApproveHook{Scope: p.Scope, Path: p.Path}
			if c.TrustStep != "" {
				if t := Trust(env, c, h, p.Path); t.State != "trusted" {
					ah.Skipped = fmt.Sprintf("%s does not run it: it is %s (%s, or interceptor install %s --trust)", c.Display, t.State, c.TrustStep, c.Name)
				}
			}
			out = append(out, ah)
		}
	}
	return out, nil
}

// EnvFromLookup is EnvFromOS reading the variables through getenv (a
// child's environment over this process's); project must be absolute.
func EnvFromLookup(getenv func(string) string, project string) (Env, error) {
	home := getenv("HOME")
	if home == "" {
		return Env{}, fmt.Errorf("cannot find the home dir: HOME is not set")
	}
	return Env{Home: home, Project: filepath.Clean(project), Getenv: getenv}, nil
}

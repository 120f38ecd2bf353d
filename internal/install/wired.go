package install

import (
	"slices"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// Wiring is one server interceptor wired into a client: its hooks at a
// scope, or (Proxy) its entry in the client's MCP config.
type Wiring struct {
	Client string
	Scope  Scope
	Server string
	Proxy  bool
	Where  string // the file (for a proxied entry, its place)
}

// Wired lists what interceptor wired into the client, as uninstall --all
// takes it out: the servers of its hooks in install's files at user and
// project scope, and the servers whose entries run through the proxy.
// Files that cannot be read are left out (doctor names them).
func Wired(env Env, c *hooks.Client) []Wiring {
	var out []Wiring
	add := func(scope Scope, path string, servers []string) {
		for _, s := range servers {
			w := Wiring{Client: c.Name, Scope: scope, Server: s, Where: path}
			if !slices.ContainsFunc(out, func(o Wiring) bool { return o.Scope == scope && o.Server == s && !o.Proxy }) {
				out = append(out, w)
			}
		}
	}
	for _, scope := range []Scope{User, Project} {
		if scope == Project && env.configPath(c, Project) == env.configPath(c, User) {
			continue // run from the home dir, the project's files are the user's
		}
		switch c.Layout {
		case hooks.Scripts:
			for _, ev := range []string{c.PreTool, c.PostTool} {
				path := ScriptPath(env, c, scope, ev)
				if data, err := ReadConfig(path); err == nil {
					if cmd, ok := ReadScript(c, string(data)); ok {
						add(scope, path, cmd.Servers)
					}
				}
			}
		case hooks.Plugin:
			path := env.configPath(c, scope)
			if data, err := ReadConfig(path); err == nil {
				if shim, ok := ReadShim(string(data)); ok {
					add(scope, path, append(slices.Clone(shim.Servers), shim.DeliverServers...))
				}
			}
		default:
			path := env.configPath(c, scope)
			data, err := ReadConfig(path)
			if err != nil {
				continue
			}
			found, err := FindHooks(path, data, c)
			if err != nil {
				continue
			}
			for _, h := range found {
				if h.Command.Sub != "" {
					add(scope, path, h.Command.Servers)
				}
			}
		}
	}
	servers, _ := MCPServers(env, c)
	for _, s := range servers {
		if _, ok := ProxyArgv(s.Command, s.Args); ok && !slices.ContainsFunc(out, func(o Wiring) bool { return o.Proxy && o.Server == s.Name }) {
			out = append(out, Wiring{Client: c.Name, Scope: User, Server: s.Name, Proxy: true, Where: s.Where()})
		}
	}
	return out
}

package doctor

import (
	"slices"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
)

// doctorProxied reports the client's MCP servers that run through
// interceptor's proxy (install --proxy, or wired by hand), fails one whose
// binary is missing (the client cannot start the server at all), and warns
// of a server that has hooks too: the proxy already carries its handles,
// so the hooks only cost two process starts per call.
func doctorProxied(cr *ClientReport, env install.Env, c *hooks.Client) {
	servers, _ := install.MCPServers(env, c) // configuredServers warns of what cannot be read
	hooked := map[string]bool{}
	for _, conf := range cr.Configs {
		for _, h := range conf.Hooks {
			if h.Kind == "inject" || h.Kind == "capture" {
				for _, s := range h.Servers {
					hooked[s] = true
				}
			}
		}
	}
	var seen []string
	for _, s := range servers {
		bin, ok := install.ProxyArgv(s.Command, s.Args)
		if !ok || slices.Contains(seen, s.Path+"\x00"+s.Name) {
			continue
		}
		seen = append(seen, s.Path+"\x00"+s.Name)
		if !binOK(bin) {
			cr.add(Fail, "%s: server %q runs through %s, which does not exist or is not executable, so %s cannot start it", s.Path, s.Name, bin, c.Display)
			continue
		}
		cr.add(OK, "%s: server %q runs through the proxy (%s)", s.Path, s.Name, bin)
		if hooked[s.Name] {
			cr.add(Warn, "server %q has hooks too, though it runs through the proxy, which carries its handles: the hooks only cost time (interceptor uninstall %s --server %s)", s.Name, c.Name, s.Name)
		}
	}
}

package doctor

import (
	"slices"
	"strings"

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
			cr.add(Fail, "%s: server %q runs through %s, which does not exist or is not executable, so %s cannot start it: %s", s.Path, s.Name, bin, c.Display, binFix(bin))
			continue
		}
		cr.add(OK, "%s: server %q runs through the proxy (%s)", s.Path, s.Name, bin)
		relayArgs(cr, c, s)
		if hooked[s.Name] {
			cr.add(Warn, "server %q has hooks too, though it runs through the proxy, which carries its handles: the hooks only cost time (interceptor uninstall %s --server %s)", s.Name, c.Name, s.Name)
		}
	}
}

// relayArgs checks the words of a relay (interceptor-http proxy): an
// address holding a key, or a header, in them is readable by every user of
// the machine in the process list (install --proxy puts both in the
// entry's environment; an entry wired by hand or by an older version may
// not).
func relayArgs(cr *ClientReport, c *hooks.Client, s install.MCPServer) {
	fix := "interceptor uninstall " + c.Name + " --proxy --server " + s.Name + ", then install again, moves it into the entry's environment"
	for i := 0; i < len(s.Args); i++ {
		flag, val, hasVal := strings.Cut(s.Args[i], "=")
		if !hasVal && i+1 < len(s.Args) {
			val = s.Args[i+1]
		}
		switch flag {
		case "--":
			return // the server's own command follows
		case "--url":
			if where := install.URLSecrets(val); len(where) > 0 {
				cr.add(Warn, "%s: server %q: the relay's --url holds a secret (in %s), which every user of this machine can read in the process list: %s (or use --url-env)", s.Path, s.Name, strings.Join(where, ", "), fix)
			}
		case "--header":
			name, _, _ := strings.Cut(val, ":")
			cr.add(Warn, "%s: server %q: the relay's --header %s is in its arguments, which every user of this machine can read in the process list: use --header-env", s.Path, s.Name, strings.TrimSpace(name))
		}
	}
}

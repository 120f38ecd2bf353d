package doctor

import (
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
)

// doctorShim checks the plugin shim (OpenCode, Kilo).
func doctorShim(cr *ClientReport, path, doc string) []HookReport {
	c, ok := install.ReadShim(doc)
	if !ok {
		cr.add(Warn, "%s is not the interceptor shim", path)
		return []HookReport{}
	}
	servers, delivers := c.Servers, c.DeliverServers
	if len(servers) == 0 && len(delivers) == 0 {
		cr.add(Info, "%s is the shim configured by environment variables (INTERCEPTOR_BIN, INTERCEPTOR_SERVER); doctor cannot check it", path)
		return []HookReport{}
	}
	if len(delivers) > 0 {
		cr.add(OK, "server(s) %s: human tools deliver (chat.message, after their tools) in the plugin shim %s", strings.Join(delivers, ", "), path)
	}
	if len(servers) == 0 {
		if !binOK(c.Bin) {
			cr.add(Fail, "%s runs %s, which does not exist or is not executable: %s", path, c.Bin, binFix(c.Bin))
		}
		return []HookReport{{Event: "chat.message, tool.execute.after", Kind: "deliver", Servers: delivers, Command: c.Bin, Bin: c.Bin, BinOK: binOK(c.Bin)}}
	}
	h := HookReport{Event: "tool.execute.before/after", Kind: "plugin", Servers: servers, Command: c.Bin, Bin: c.Bin, BinOK: binOK(c.Bin)}
	cr.add(OK, "server(s) %s: plugin shim installed in %s", strings.Join(servers, ", "), path)
	if len(c.ApproveArgs) > 0 {
		cr.add(Info, "%s runs approve before inject (APPROVE_ARGS %s)", path, strings.Join(c.ApproveArgs, " "))
	}
	if !h.BinOK {
		cr.add(Fail, "%s runs %s, which does not exist or is not executable: %s", path, c.Bin, binFix(c.Bin))
	}
	if d := flagValue(c.Args, "--state-dir"); d != "" {
		h.Command = c.Bin + " --state-dir " + d
		h.stateDir = d
	}
	return []HookReport{h}
}

// doctorShimAPI fails a shim written for the other OpenCode plugin API than
// the installed OpenCode's: OpenCode 2 refuses a V1 plugin, and 1.x finds
// no V1 export in a V2 one; either way no handle is carried and nothing
// looks wrong.
func doctorShimAPI(cr *ClientReport, path, doc string) {
	major, version := openCodeMajor()
	if major == 0 {
		cr.add(Info, "no %s on PATH answered --version, so doctor cannot tell whether %s (plugin API v%d) is the one it loads", hooks.OpenCodeClient.Name, path, install.ShimAPI(doc))
		return
	}
	want := 1
	if major >= 2 {
		want = 2
	}
	if got := install.ShimAPI(doc); got != want {
		oc := &hooks.OpenCodeClient
		cr.add(Fail, "%s is the plugin for %s's API v%d, but the %s on PATH is %s (API v%d), which does not load it: no handle is carried; run: interceptor install %s again", path, oc.Display, got, oc.Name, version, want, oc.Name)
	}
}

// openCodeMajor is install.OpenCodeMajor; tests replace it.
var openCodeMajor = install.OpenCodeMajor

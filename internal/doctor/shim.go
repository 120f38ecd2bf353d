package doctor

import (
	"strings"

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

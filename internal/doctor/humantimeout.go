package doctor

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
)

// doctorHumanTimeouts checks every configured server that serves human
// tools (interceptor mcp or proxy with --human-tools): a held call waits up
// to its --timeout (proxy: --human-timeout) for a person, and a client that
// gives up on the tool call first (hooks.Client.MCPToolTimeout) loses the
// answer.
func doctorHumanTimeouts(cr *ClientReport, env install.Env, c *hooks.Client) {
	spec := c.MCPToolTimeout
	if spec.Key == "" {
		return
	}
	servers, _ := install.MCPServers(env, c) // configuredServers warns of what cannot be read
	for _, e := range servers {
		hold, ok := humanHoldTimeout(e.Command, e.Args)
		if !ok {
			continue
		}
		limit, where := spec.Default, "its default"
		if e.HasToolTimeout {
			limit, where = time.Duration(e.ToolTimeout*float64(spec.Unit)), spec.Key
		}
		if hold >= limit {
			cr.add(Fail, "%s: server %q holds a human tool call up to %s, but %s gives up on a tool call after %s (%s): raise %s or lower the hold timeout (docs/human-tools.md)",
				e.Path, e.Name, hold, c.Display, limit, where, spec.Key)
			continue
		}
		cr.add(OK, "%s: server %q holds a human tool call up to %s, within %s's %s (%s)", e.Path, e.Name, hold, c.Display, limit, where)
	}
}

// humanHoldTimeout is how long a server command holds a human tool call:
// interceptor mcp's --timeout, or proxy's --human-timeout (both default
// approvals.DefaultTimeout); ok is false for a command that serves no
// human tools (or whose timeout does not parse).
func humanHoldTimeout(command string, args []string) (time.Duration, bool) {
	if !strings.HasPrefix(strings.ToLower(filepath.Base(command)), "interceptor") || len(args) == 0 {
		return 0, false
	}
	flag := map[string]string{"mcp": "--timeout", "proxy": "--human-timeout"}[args[0]]
	if flag == "" {
		return 0, false
	}
	hold, human := approvals.DefaultTimeout, false
	for i := 1; i < len(args) && args[i] != "--"; i++ {
		a := args[i]
		if a == "--human-tools" || strings.HasPrefix(a, "--human-tools=") {
			human = true
		}
		v, found := "", false
		switch {
		case a == flag && i+1 < len(args):
			v, found = args[i+1], true
			i++
		case strings.HasPrefix(a, flag+"="):
			v, found = strings.TrimPrefix(a, flag+"="), true
		}
		if found {
			d, err := time.ParseDuration(v)
			if err != nil {
				return 0, false
			}
			hold = d
		}
	}
	return hold, human
}

package doctor

import (
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// onlyDeliver reports a server whose hooks are all deliver hooks: a human
// tools server (install --deliver), which has no token hooks to check.
func onlyDeliver(kinds []string) bool {
	for _, k := range kinds {
		if k != "deliver" {
			return false
		}
	}
	return len(kinds) > 0
}

// doctorDeliver checks a human tools server's deliver hooks: one on the
// turn-start event, one after its tools.
func doctorDeliver(cr *ClientReport, c *hooks.Client, server string, n int, paths []string) {
	if n == 2 {
		cr.add(OK, "server %q: human tools deliver hooks installed in %s", server, strings.Join(paths, ", "))
		return
	}
	cr.add(Warn, "server %q: %d deliver hooks (in %s), want 2 (%s and %s); run: interceptor install %s --server %s --deliver",
		server, n, strings.Join(paths, ", "), c.PromptEvent, c.PostTool, c.Name, server)
}

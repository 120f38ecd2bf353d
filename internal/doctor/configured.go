package doctor

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
)

// doctorConfigured fails the hooks of a server the client has not
// configured (a typo in --server): they never fire, and nothing else would
// say so. Where the client lists no server doctor can read, it warns.
func doctorConfigured(cr *ClientReport, env install.Env, c *hooks.Client, server string) {
	msg, none := install.NotConfigured(env, c, server)
	switch {
	case msg == "":
		if where := install.FoundWhere(env, c, server); where != "" {
			cr.add(Info, "server %q: configured in %s", server, where)
		}
	case none:
		cr.add(Warn, "server %q: %s", server, msg)
	default:
		cr.add(Fail, "server %q: %s (uninstall them: interceptor uninstall %s --server %s)", server, msg, c.Name, server)
	}
}

// binFix is the command that puts back a binary a hook or a proxied entry
// runs: built from a clone to that path (or, for a binary that moved,
// reinstalling with --bin).
func binFix(bin string) string {
	pkg := "./cmd/interceptor"
	if strings.HasPrefix(filepath.Base(bin), "interceptor-http") {
		pkg = "./cmd/interceptor-http"
	}
	return fmt.Sprintf("from a clone, build it there: CGO_ENABLED=0 go build -o %s %s (or reinstall with --bin the one you use)", bin, pkg)
}

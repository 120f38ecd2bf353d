package children

import (
	"fmt"
	"os"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/install"
)

// CheckApproveRoute refuses a hook client child (Codex, Gemini CLI,
// OpenCode) whose approve hook is not installed where its client reads it
// (user scope, or project scope at its working dir, as the child's own
// environment finds them) or would not run: it would run its tools
// unsupervised and nobody would be asked. A child created with
// approvals: false (Unsupervised) is not checked. Claude Code children
// need nothing installed: each chat wires its own route.
func CheckApproveRoute(c Child) error {
	client, err := LookupClient(c.Client)
	if err != nil {
		return err
	}
	if !client.Traits().HookApprovals || c.Unsupervised {
		return nil
	}
	getenv := func(k string) string {
		if v, ok := c.Env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	env, err := install.EnvFromLookup(getenv, c.WorkingDir)
	if err != nil {
		return fmt.Errorf("%s child %q: finding its approve hook: %v", c.Client, c.Name, err)
	}
	found, err := install.FindApproveHooks(env, c.Client)
	if err != nil {
		return fmt.Errorf("%s child %q: reading its approve hook: %v", c.Client, c.Name, err)
	}
	var skipped []string
	for _, h := range found {
		if h.Skipped == "" {
			return nil
		}
		skipped = append(skipped, h.Path+": "+h.Skipped)
	}
	if len(skipped) > 0 {
		return fmt.Errorf("%s child %q: its approve hook would not run, so its tools would run unsupervised: %s", c.Client, c.Name, strings.Join(skipped, "; "))
	}
	return fmt.Errorf("%s child %q: no approve hook is installed for %s (user scope, or project scope in %s), so its tools would run unsupervised: run interceptor install %s --server NAME --approve (or create it with approvals: false, --approvals=false at the CLI, to run it unsupervised)",
		c.Client, c.Name, c.Client, c.WorkingDir, c.Client)
}

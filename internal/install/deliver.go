package install

import (
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// deliverEntries are the hooks of `install CLIENT --server NAME --deliver`
// (docs/human-tools.md): `interceptor deliver` on the client's turn-start
// event (it hands the model the answers to parked human tool calls) and on
// the post-tool event of NAME's tools (it ties a parked call to its
// session). NAME is the server serving the human tools; nothing else is
// installed for it.
func deliverEntries(o Options, c *hooks.Client) []hookEntry {
	cmd := commandFor(o, c.Name, "deliver", stateDirArgs(o.Hook))
	return []hookEntry{
		{event: c.PromptEvent, sub: "deliver", command: cmd, timeout: c.Timeout},
		{event: c.PostTool, sub: "deliver", matcher: toolMatcher(c, o.Server), command: cmd, timeout: c.Timeout},
	}
}

// checkDeliver refuses --deliver for a client without a turn-start event
// that takes added context, and next to flags it has nothing to do with.
func checkDeliver(o Options) error {
	if !o.Deliver {
		return nil
	}
	if c, ok := hooks.FindClient(o.Client); !ok || c.PromptEvent == "" {
		var supported []string
		for _, c := range hooks.ByName() {
			if c.PromptEvent != "" {
				supported = append(supported, c.Name)
			}
		}
		return fmt.Errorf("--deliver: %s has no turn-start hook that adds context (supported: %s; docs/human-tools.md)", o.Client, strings.Join(supported, ", "))
	}
	if o.Approve.On || o.Hook.Redact {
		return fmt.Errorf("--deliver installs only the human tools' deliver hooks for --server %s; install --approve or --redact for a token server separately", o.Server)
	}
	return nil
}

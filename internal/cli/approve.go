package cli

import (
	"errors"
	"io"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hookrun"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/termio"
	"github.com/spf13/cobra"
)

func newApproveCmd(io *IO) *cobra.Command {
	f := &hookrun.ApproveFlags{}
	cmd := hookCmd("approve [--match REGEX] [--timeout 5m] [--on-timeout deny|allow]",
		"Pre-tool hook: hold a tool call until a supervisor allows or denies it",
		wrap(`Reads one pre-tool hook event on stdin (any client). A call whose tool name
matches --match (default: every tool) is decided by rules first: a name
matching a --deny REGEX is denied, then one matching an --allow REGEX is
allowed, without asking. Any other call is put in the approval queue
(<state dir>/approvals/) and the hook blocks until a supervisor decides it
(interceptor approvals allow|deny ID, approvals watch, or the MCP server
interceptor mcp --role supervisor), then answers in the client's own terms:
allow or deny, with the reason the model reads, and on allow the
supervisor's new arguments where the client takes them`+newInputCaveats()+`. install
writes the approve hook for `+displays(clientsWhere(func(c *hooks.Client) bool { return !c.NoApprove }))+`. Regexes match the tool name as
the client sends it (mcp__wf__next_step, mcp_wf_next_step, wf_next_step).`)+`

After --timeout with no decision the request expires and the call is denied
(--on-timeout allow runs it instead). The client's own hook timeout must be
longer than --timeout plus 30 s, or the client kills the hook and runs the
tool unapproved: interceptor install sets it, interceptor doctor checks it.

Failure policy: fails CLOSED. Any problem once the event is read (unsafe
state dir, a lock held too long, a bad --match/--allow/--deny regex) denies
the call with the problem as the reason, plus one line on stderr. An event
that cannot be fully read (over 8 MiB, nested too deep, not JSON, stdin not
closed within 5 s) is denied too, in the shape of the --client named; only
with --client auto is there no shape to answer in: one stderr line and the
call proceeds under the client's own rules. Always exits 0, never 2.`)
	registerHookFlags(cmd, hookrun.CmdApprove, nil, f)
	// The root's applyEnv fails a command before it runs, and a hook that
	// fails lets the call proceed: approve keeps the error and denies.
	cmd.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		f.EnvErr = applyEnv(cmd.Flags())
		return nil
	}
	cmd.RunE = func(*cobra.Command, []string) error {
		if termio.OnTerminal(io.In) {
			return errors.New(approveByHand) // at once: nothing to wait for
		}
		in := &countingReader{r: io.In}
		hio := *io
		hio.In = in
		err := runApprove(&hio, f)
		if err != nil && f.Client == "auto" && in.n == 0 {
			// No client sends nothing and names no client: a person ran it.
			return errors.New(approveByHand)
		}
		return err
	}
	return cmd
}

// approveByHand is what approve says to a person who runs it by hand.
const approveByHand = "approve is a pre-tool hook: a client runs it with each tool call's event on stdin, and it holds the call until a supervisor decides; " +
	"wire it with `interceptor install CLIENT --server NAME --approve`, and decide the calls it holds with `interceptor approvals watch` (docs/approvals.md)"

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// runApprove runs approve on the harness; TestHookArgvMatchesCobra
// replaces it to read what the flags parsed.
var runApprove = hookrun.Approve

// newInputCaveats is where new arguments do not reach the call, from the
// clients' descriptions: " (…; …)", or "" when they reach it everywhere.
func newInputCaveats() string {
	var out []string
	for _, c := range clientsWhere(func(c *hooks.Client) bool { return c.NewInputCaveat != "" }) {
		out = append(out, c.NewInputCaveat)
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

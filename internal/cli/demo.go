package cli

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
)

// The demo's sample events, of demoClient: a PostToolUse whose structured
// result carries a signed session token, and the next PreToolUse that
// lacks it.
//
//go:embed demo/*.json
var demoEvents embed.FS

// demoClient is the client whose events the demo replays.
var demoClient = &hooks.ClaudeCodeClient

func newDemoCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Show the token lifecycle on built-in sample events (uses a temporary state dir)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			dir, err := os.MkdirTemp("", "interceptor-demo-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			post, _ := demoEvents.ReadFile("demo/" + demoClient.Name + ".PostToolUse.json")
			pre, _ := demoEvents.ReadFile("demo/" + demoClient.Name + ".PreToolUse.json")
			who := demoClient.Display
			fmt.Fprintf(io.Out, "interceptor demo: the token lifecycle on built-in %s events\n(state in %s, removed afterwards)\n\n", who, dir)

			fmt.Fprintf(io.Out, "1. The wf server's result carries a new session_token. %s runs the\n   post-tool hook with this event (abridged):\n", who)
			fmt.Fprintf(io.Out, "     tool_name:     %s\n     tool_response: %s\n\n", gjson.GetBytes(post, "tool_name").Str, gjson.GetBytes(post, "tool_response").Str)
			out, err := demoStep(io, dir, post, "capture", "--server", "wf", "--redact")
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "   The token is stored for session %s.\n   Reply (the model reads a stand-in that names the token, never the token):\n%s\n",
				gjson.GetBytes(post, "session_id").Str, indent(out))

			fmt.Fprintf(io.Out, "2. The model calls the next step and types no token. %s runs the\n   pre-tool hook with this event (abridged):\n", who)
			fmt.Fprintf(io.Out, "     tool_name:  %s\n     tool_input: %s\n\n", gjson.GetBytes(pre, "tool_name").Str, rawjson.OneLine(gjson.GetBytes(pre, "tool_input").Raw))
			out, err = demoStep(io, dir, pre, "inject", "--server", "wf")
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "   Reply (%s calls the tool with these arguments, token included):\n%s\n", who, indent(out))
			fmt.Fprintln(io.Out, "Wire it into a real client: see recipes/ (or README.md).")
			return nil
		},
	}
}

// demoStep runs one hook command in this process, exactly as a client would
// run it, and returns its reply.
func demoStep(io *IO, dir string, event []byte, args ...string) ([]byte, error) {
	fmt.Fprintf(io.Out, "   $ interceptor %s < event.json\n", strings.Join(args, " "))
	var out, errb bytes.Buffer
	code := run(append(args, "--state-dir", dir), &IO{In: bytes.NewReader(event), Out: &out, Err: &errb})
	if code != 0 || errb.Len() > 0 || out.Len() == 0 {
		return nil, fmt.Errorf("demo step %q failed (exit %d): %s", args[0], code, oneLine(errb.String()))
	}
	return out.Bytes(), nil
}

func indent(reply []byte) string {
	p := pretty.PrettyOptions(reply, &pretty.Options{Width: 100, Indent: "  "})
	var b bytes.Buffer
	for _, line := range bytes.SplitAfter(bytes.TrimRight(p, "\n"), []byte("\n")) {
		b.WriteString("     ")
		b.Write(line)
	}
	b.WriteString("\n")
	return b.String()
}

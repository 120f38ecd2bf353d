package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
)

// clineEvent is the real Cline PreToolUse payload calling toolName.
func clineEvent(t *testing.T, toolName string) *Event {
	t.Helper()
	payload := strings.ReplaceAll(string(fixture(t, "cline.PreToolUse.json")), `"wf__next_step"`, `"`+toolName+`"`)
	ev, err := Parse([]byte(payload), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Client.Name() != "cline" || ev.ToolName != toolName {
		t.Fatalf("parsed as %s, tool %q", ev.Client.Name(), ev.ToolName)
	}
	return ev
}

func TestClineToolNames(t *testing.T) {
	// Cline 3.0.65 names tools <server>__<tool> when that is at most 64
	// characters of [A-Za-z0-9_-], else sanitized and cut to 55 plus
	// "_" and 8 hex digits of its SHA-1.
	long := "wf__" + strings.Repeat("x", 51) + "_0123abcd"
	checkTools(t, clineEvent(t, "wf__next_step"), []toolCase{
		{"wf__next_step", "wf", "next_step", true},
		{"wf-server__next_step", "wf-server", "next_step", true},
		{"wf__next_step", "wf2", "", false},
		{"wf__a__b", "wf", "a__b", true},
		// Any other character in the server's name makes Cline hash every
		// tool's name (seen: wf.v2's probe is wf_v2__probe_770cc911): the
		// hash is cut off, and a name without one is not that server's.
		{"wf_v2__probe_1a2b3c4d", "wf.v2", "probe", true},
		{"wf_v2__probe", "wf.v2", "", false},
		{"wf_v2__probe", "wf_v2", "probe", true},
		{long, "wf", "", false},
		// 64 characters that do not end in a hash are a plain name.
		{"wf__" + strings.Repeat("x", 60), "wf", strings.Repeat("x", 60), true},
	})
	if len(long) != clineMaxName {
		t.Fatalf("the hashed name is %d long", len(long))
	}
}

func TestClineCannotRedact(t *testing.T) {
	ev, err := Parse(fixture(t, "cline.PostToolUse.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: token.Held{clineTok}}}); !errors.Is(err, ErrCannotRewrite) {
		t.Errorf("RedactReply = %v, want ErrCannotRewrite", err)
	}
}

func TestClineSessionFallsBackToRootSession(t *testing.T) {
	payload := strings.Replace(string(fixture(t, "cline.PreToolUse.json")), `"taskId": "conv_1795345560094_4edyoff"`, `"taskId": ""`, 1)
	ev, err := Parse([]byte(payload), Cline{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Session != "1795345559687_phq10" {
		t.Errorf("session %q, want the root session id", ev.Session)
	}
}

// toolCase is a tool name and whether (and as which tool) it belongs to
// server.
type toolCase struct {
	toolName, server, tool string
	ok                     bool
}

// checkTools asks ev's client about each case's tool name.
func checkTools(t *testing.T, ev *Event, cases []toolCase) {
	t.Helper()
	for _, c := range cases {
		ev.ToolName = c.toolName
		tool, ok := ev.Client.Tool(ev, c.server)
		if ok != c.ok || tool != c.tool {
			t.Errorf("%q for server %q = %q %v, want %q %v", c.toolName, c.server, tool, ok, c.tool, c.ok)
		}
	}
}

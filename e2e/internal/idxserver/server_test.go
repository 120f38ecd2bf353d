package idxserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(t *testing.T, cfg Config) *mcp.ClientSession {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCPServer().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls tool and returns _meta.session_index, the text and isError.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := res.Meta[Arg].(string)
	var text strings.Builder
	for _, c := range res.Content {
		text.WriteString(c.(*mcp.TextContent).Text)
	}
	return idx, text.String(), res.IsError
}

var shape = regexp.MustCompile(`^[A-Z2-7]{6}$`)

func TestSessions(t *testing.T) {
	dir := t.TempDir()
	log, fail := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "fail")
	cs := connect(t, Config{LogPath: log, FailRestartFile: fail})

	a, text, isErr := call(t, cs, "start_session", nil)
	var started map[string]any
	if isErr || !shape.MatchString(a) || json.Unmarshal([]byte(text), &started) != nil || started[Arg] != a {
		t.Fatalf("start_session: _meta %q, text %q: want the index in _meta and as a top-level field of JSON text", a, text)
	}
	if strings.ContainsAny(a, "234567") {
		t.Errorf("the first session's index %q has a digit; want none", a)
	}
	if idx, text, _ := call(t, cs, "get_activity", map[string]any{Arg: a, "activity_id": "x"}); idx != a || !strings.Contains(text, "\nsession_index: "+a) {
		t.Errorf("get_activity: _meta %q, text %q: want its index in _meta and a session_index line", idx, text)
	}
	_, text, _ = call(t, cs, "dispatch_child", map[string]any{Arg: a, "workflow_id": "c"})
	var child struct {
		Index string `json:"child_session_index"`
	}
	if json.Unmarshal([]byte(text), &child) != nil || !shape.MatchString(child.Index) || child.Index == a {
		t.Fatalf("dispatch_child: %q: want a child_session_index of its own", text)
	}
	if idx, _, isErr := call(t, cs, "next_activity", map[string]any{Arg: child.Index, "transition": "t"}); isErr || idx != child.Index {
		t.Errorf("a call with the child's index: _meta %q, error %v: want it to run against the child", idx, isErr)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"activity_id": "x"}, VerdictMissing},
		{map[string]any{Arg: 7}, VerdictMalformed},
		{map[string]any{Arg: "ZZZZZZ"}, VerdictUnknown},
	} {
		if _, text, isErr := call(t, cs, "get_activity", c.args); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("get_activity %v: %q, want a %s error", c.args, text, c.want)
		}
	}

	// A designated restart fails with no index, and closes the session.
	if err := os.WriteFile(fail, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if idx, text, isErr := call(t, cs, "start_session", nil); !isErr || idx != "" || !strings.HasPrefix(text, StartFailedText) {
		t.Errorf("the designated restart: _meta %q, %q, error %v: want an error with no index", idx, text, isErr)
	}
	for _, idx := range []string{a, child.Index} {
		if _, text, isErr := call(t, cs, "get_activity", map[string]any{Arg: idx}); !isErr || !strings.Contains(text, VerdictAnother) {
			t.Errorf("after the failed restart, %s: %q, want %s", idx, text, VerdictAnother)
		}
	}
	b, _, _ := call(t, cs, "start_session", nil)
	if b == "" || b == a {
		t.Fatalf("the third start_session: %q", b)
	}
	if _, _, isErr := call(t, cs, "get_activity", map[string]any{Arg: b}); isErr {
		t.Errorf("the new session's index was refused")
	}

	recs, err := ReadLog(log)
	if err != nil {
		t.Fatal(err)
	}
	var verdicts []string
	for _, r := range recs {
		if r.Event == "call" {
			verdicts = append(verdicts, r.Tool+":"+r.Verdict)
		}
	}
	want := "start_session:ok get_activity:ok dispatch_child:ok next_activity:ok get_activity:missing get_activity:malformed get_activity:unknown " +
		"start_session:start_failed get_activity:belongs_to_another_session get_activity:belongs_to_another_session start_session:ok get_activity:ok"
	if got := strings.Join(verdicts, " "); got != want {
		t.Errorf("log verdicts:\n got %s\nwant %s", got, want)
	}
}

package verify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// world runs wf and other server instances that share one log.
type world struct {
	t   *testing.T
	log string
}

func newWorld(t *testing.T) *world { return &world{t, filepath.Join(t.TempDir(), "log.jsonl")} }

func (w *world) server(role string) *mcp.ClientSession {
	return w.serverWith(wfserver.Config{Role: role})
}

func (w *world) serverWith(cfg wfserver.Config) *mcp.ClientSession {
	w.t.Helper()
	cfg.LogPath = w.log
	s, err := wfserver.New(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { s.Close() })
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCPServer().Connect(context.Background(), st, nil); err != nil {
		w.t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

func (w *world) call(cs *mcp.ClientSession, tool string, args map[string]any) string {
	w.t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		w.t.Fatal(err)
	}
	tok, _ := res.Meta["session_token"].(string)
	return tok
}

func (w *world) records() []wfserver.Record {
	recs, err := wfserver.ReadLog(w.log)
	if err != nil {
		w.t.Fatal(err)
	}
	return recs
}

// session plays the scripted conversation; inject decides the token sent
// with each next_step given the token the last result carried.
func (w *world) session(wf, other *mcp.ClientSession, inject func(step, held string) string) {
	held := w.call(wf, "start_session", nil)
	for i, step := range fakemodel.Steps {
		args := map[string]any{"step": step}
		if tok := inject(step, held); tok != "" {
			args["session_token"] = tok
		}
		if next := w.call(wf, "next_step", args); next != "" {
			held = next
		}
		if i == 0 {
			w.call(other, "echo", map[string]any{"text": "hi"})
		}
	}
}

func honest(_, held string) string { return held }

func wantProblem(t *testing.T, probs []string, substr string) {
	t.Helper()
	for _, p := range probs {
		if strings.Contains(p, substr) {
			return
		}
	}
	t.Errorf("no problem mentions %q; got %q", substr, probs)
}

func TestSessionsPass(t *testing.T) {
	w := newWorld(t)
	for range 2 {
		w.session(w.server("wf"), w.server("other"), honest)
	}
	if probs := Sessions(w.records(), 2); len(probs) != 0 {
		t.Fatalf("unexpected problems: %q", probs)
	}
	if got := len(Tokens(w.records())); got != 6 {
		t.Errorf("issued tokens %d, want 6", got)
	}
}

func TestSessionsMissing(t *testing.T) {
	w := newWorld(t)
	w.session(w.server("wf"), w.server("other"), func(string, string) string { return "" })
	probs := Sessions(w.records(), 1)
	wantProblem(t, probs, `next_step(step="one")`)
	wantProblem(t, probs, "missing_token")
	wantProblem(t, probs, "session s_")
}

func TestSessionsStale(t *testing.T) {
	w := newWorld(t)
	var first string
	w.session(w.server("wf"), w.server("other"), func(step, held string) string {
		if first == "" {
			first = held
		}
		return first // never updates: step two sends a stale token
	})
	wantProblem(t, Sessions(w.records(), 1), `next_step(step="two") on instance`)
	wantProblem(t, Sessions(w.records(), 1), "stale_token")
}

func TestSessionsCrossTalk(t *testing.T) {
	w := newWorld(t)
	wfA, wfB, other := w.server("wf"), w.server("wf"), w.server("other")
	tokA := w.call(wfA, "start_session", nil)
	w.call(wfB, "start_session", nil)
	w.call(wfB, "next_step", map[string]any{"step": "one", "session_token": tokA})
	w.call(other, "echo", map[string]any{"text": "x", "session_token": tokA})
	probs := Sessions(w.records(), 2)
	wantProblem(t, probs, "foreign_token")
	wantProblem(t, probs, "cross-talk")
	wantProblem(t, probs, "other.echo received a session_token")
	wantProblem(t, probs, "want 2 calls of the other server's echo tool")
}

func TestSessionsWrongCount(t *testing.T) {
	w := newWorld(t)
	w.session(w.server("wf"), w.server("other"), honest)
	wantProblem(t, Sessions(w.records(), 2), "want 2 workflow sessions started, the server log shows 1")
}

func TestFindLeaks(t *testing.T) {
	w := newWorld(t)
	tok := w.call(w.server("wf"), "start_session", nil)
	other := w.call(w.server("wf"), "start_session", nil)
	p, sig, _ := strings.Cut(tok, ".")
	args, _ := json.Marshal(map[string]string{"step": "one", "session_token": tok})
	body, _ := json.Marshal(map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "go"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"function": map[string]any{"arguments": string(args)}}}},
		map[string]any{"role": "tool", "content": "signature " + sig},
		map[string]any{"role": "tool", "content": "payload " + p},
	}})
	leaks := FindLeaks(body, []string{tok, other})
	if len(leaks) != 1 || leaks[0].Token != tok {
		t.Fatalf("leaks %+v", leaks)
	}
	got := strings.Join(leaks[0].Paths, " ")
	for _, want := range []string{"messages[1].tool_calls[0].function.arguments<json>.session_token", "messages[2].content", "messages[3].content"} {
		if !strings.Contains(got, want) {
			t.Errorf("paths %q lack %q", got, want)
		}
	}
	if l := FindLeaks([]byte(`{"x":"clean"}`), []string{tok}); len(l) != 0 {
		t.Errorf("clean body: %+v", l)
	}
}

func TestStateFiles(t *testing.T) {
	dir := t.TempDir()
	if _, probs := StateFiles(dir); len(probs) != 1 || !strings.Contains(probs[0], "no state file") {
		t.Errorf("empty dir: %q", probs)
	}
	os.WriteFile(filepath.Join(dir, "ok"), []byte("x"), 0o600)
	if files, probs := StateFiles(dir); len(probs) != 0 || len(files) != 1 {
		t.Errorf("0600 file: %q %q", files, probs)
	}
	os.WriteFile(filepath.Join(dir, "loose"), []byte("x"), 0o644)
	os.Chmod(filepath.Join(dir, "loose"), 0o644)
	_, probs := StateFiles(dir)
	wantProblem(t, probs, "loose has mode 0644")
}

func TestToolSchemas(t *testing.T) {
	schema := `{"type":"object","properties":{"step":{"type":"string","description":"uses session_token"},"session_token":{"type":"string"}},"required":["step","session_token"]}`
	bodies := map[string]string{
		"anthropic": `{"tools":[{"name":"mcp__wf__next_step","description":"Requires session_token","input_schema":` + schema + `}]}`,
		"chat":      `{"tools":[{"type":"function","function":{"name":"wf_next_step","parameters":` + schema + `}}]}`,
		"responses": `{"tools":[{"type":"namespace","name":"mcp__wf","tools":[{"type":"function","name":"next_step","parameters":` + schema + `}]}]}`,
		"gemini":    `{"tools":[{"functionDeclarations":[{"name":"mcp_wf_next_step","parametersJsonSchema":` + schema + `}]}]}`,
	}
	want := map[string]string{"anthropic": "mcp__wf__next_step", "chat": "wf_next_step", "responses": "mcp__wf__next_step", "gemini": "mcp_wf_next_step"}
	for api, body := range bodies {
		got := ToolSchemas([]byte(body))
		s, ok := got[want[api]]
		if !ok {
			t.Errorf("%s: no schema for %s in %v", api, want[api], got)
			continue
		}
		if m := SchemaMentions(s, "session_token"); len(m) != 2 {
			t.Errorf("%s: mentions %v, want the property and the required entry", api, m)
		}
	}
	clean := `{"type":"object","properties":{"step":{"type":"string","description":"the session_token is added for you"}},"required":["step"]}`
	if m := SchemaMentions(mustParse(t, clean), "session_token"); len(m) != 0 {
		t.Errorf("a description mentioning the argument counted: %v", m)
	}
}

func mustParse(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

package inbox

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/tidwall/gjson"
)

// Starting a child from the page: each bad field is refused with one line
// naming it, and nothing is made; a good start creates the child and runs
// its chat; the next chat continues it; cancel answers for the chat; and
// none of it works without the page's session.
func TestChildFromThePage(t *testing.T) {
	s := newServer(t, Options{})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s.kids.Bin = exe
	pathDir, _ := chatFixture(t)
	t.Setenv("PATH", pathDir+":/usr/bin:/bin") // the runner inherits the inbox's environment
	dir := t.TempDir()
	post := func(path string, v any) (int, gjson.Result) {
		w := s.do(s.req("POST", path, js(v)))
		return w.Code, gjson.Parse(w.Body.String())
	}
	good := map[string]any{"name": "worker", "client": "claude-code", "dir": dir, "prompt": "Run the workflow."}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for k, v := range good {
			m[k] = v
		}
		m[k] = v
		return m
	}
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{with("name", "../x"), "child name"},
		{with("client", "vim"), `client "vim": want one of`},
		{with("dir", "relative/dir"), "want an absolute path"},
		{with("dir", filepath.Join(dir, "missing")), "not a directory"},
		{with("prompt", "  \n"), "the prompt is empty"},
		{with("extra", true), "extra"},
	} {
		code, j := post("/api/children/start", c.body)
		if msg := j.Get("error").Str; code != http.StatusBadRequest || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("start %v: %d %q, want 400 with %q", c.body, code, msg, c.want)
		}
	}
	if all, _ := s.kids.List(); len(all) != 0 {
		t.Fatalf("refused starts made children: %v", all)
	}
	if w := s.do(s.bare("POST", "/api/children/start", js(good))); w.Code != http.StatusUnauthorized {
		t.Errorf("a start without a session: %d", w.Code)
	}

	code, j := post("/api/children/start", good)
	if code != http.StatusOK {
		t.Fatalf("start: %d %s", code, j.Raw)
	}
	chat1 := j.Get("chat").Str
	waitEnded(t, s.kids, chat1)
	if code, j := post("/api/children/start", good); code != http.StatusBadRequest || !strings.Contains(j.Get("error").Str, "exists") {
		t.Errorf("a second child of the same name: %d %s", code, j.Raw)
	}
	code, j = post("/api/chat/continue", map[string]any{"chat": chat1, "prompt": "And again."})
	if code != http.StatusOK {
		t.Fatalf("continue: %d %s", code, j.Raw)
	}
	chat2 := j.Get("chat").Str
	if c, n, _ := children.ParseChatID(chat2); n != 2 || !strings.HasPrefix(chat1, c+"-") {
		t.Errorf("continue made chat %s after %s", chat2, chat1)
	}
	waitEnded(t, s.kids, chat2)
	if code, j := post("/api/chat/cancel", map[string]any{"chat": "0123456789abcdef-1"}); code != http.StatusNotFound {
		t.Errorf("cancel of an unknown chat: %d %s", code, j.Raw)
	}
	if code, j := post("/api/chat/cancel", map[string]any{"chat": chat2}); code != http.StatusOK || j.Get("chat").Str != chat2 {
		t.Errorf("cancel: %d %s", code, j.Raw)
	}
	if code, j := post("/api/chat/continue", map[string]any{"chat": "../../x-1", "prompt": "p"}); code != http.StatusNotFound {
		t.Errorf("continue of a path: %d %s", code, j.Raw)
	}
}

func waitEnded(t *testing.T, kids *children.Store, id string) {
	t.Helper()
	chat, err := kids.Chat(id)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if st, _ := chat.State(); st == children.Complete || st == children.Failed {
			return
		}
	}
	t.Fatalf("chat %s did not end", id)
}

// A chat's tool call reads as a card does: an Edit as a diff, a Write as
// its path and content (a held token as its stand-in), anything else as
// its input only.
func TestChatToolCallCards(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	tok := "tok-CHAT-EDIT-0123456789abcdefgh"
	if err := state.New(dir).Put(state.Record{Token: tok, Server: "wf", Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	v := children.NewViewer(dir, "s1")
	ev := func(name, input string) eventView {
		return eventOf(v, children.Event{Seq: 1, Time: time.Now(), Event: `{"type":"tool_use","id":"t1","name":"` + name + `","input":` + input + `}`}, "/proj")
	}
	e := ev("Edit", `{"file_path":"/proj/a.txt","old_string":"one","new_string":"two"}`)
	if e.Card == nil || e.Card.Kind != "edit" || !strings.Contains(e.Card.Diff, "-one") || !strings.Contains(e.Card.Diff, "+two") {
		t.Errorf("an Edit: %+v", e.Card)
	}
	w := ev("Write", `{"file_path":"/proj/b.txt","content":"token `+tok+`\nline 2"}`)
	if w.Card == nil || w.Card.Kind != "write" || w.Card.Path != "/proj/b.txt" || strings.Contains(w.Card.Content, tok) ||
		!strings.Contains(w.Card.Content, "held by interceptor]") {
		t.Errorf("a Write: %+v", w.Card)
	}
	if m := ev("mcp__wf__next_step", `{"step":"one"}`); m.Card != nil || !strings.Contains(m.Input, `"step": "one"`) {
		t.Errorf("an MCP call: card %+v, input %q", m.Card, m.Input)
	}
}

package inbox

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// The test binary is also a chat's runner: StartChat runs
// `<bin> children runner --state-dir D --chat ID`.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "children" && os.Args[2] == "runner" {
		fs := flag.NewFlagSet("runner", flag.ExitOnError)
		dir := fs.String("state-dir", "", "")
		chat := fs.String("chat", "", "")
		fs.Parse(os.Args[3:])
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := children.New(*dir).Run(ctx, *chat, time.Minute); err != nil {
			fmt.Fprintln(os.Stderr, "runner:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// chatFixture is the recorded Claude Code chat of internal/children, with
// one more assistant text carrying a terminal escape, a bidi override and
// a session_token line, before its result.
func chatFixture(t *testing.T) (pathDir, tok string) {
	t.Helper()
	rec, err := os.ReadFile("../children/testdata/claude-code-chat1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(rec)), "\n")
	for _, line := range lines {
		if i := strings.Index(line, "session_token: "); i >= 0 {
			tok = line[i+len("session_token: "):]
			tok = tok[:strings.IndexAny(tok, `"\`)]
			break
		}
	}
	if len(tok) < 100 {
		t.Fatal("no token in the fixture")
	}
	extra := `{"type":"assistant","message":{"content":[{"text":"\u001b[2Jsee \u202eevil\nsession_token: tok-LINE-ONLY-0123456789abcdefgh","type":"text"}],"id":"msg_x","model":"m","role":"assistant"},"session_id":"11111111-2222-4333-8444-555555555555"}`
	all := append(append(append([]string{}, lines[:len(lines)-1]...), extra), lines[len(lines)-1])
	dir := t.TempDir()
	fixture := filepath.Join(dir, "chat.jsonl")
	if err := os.WriteFile(fixture, []byte(strings.Join(all, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\ncat %q\n", fixture)
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, tok
}

// endedChat runs a child "worker" of Claude Code (chatFixture's fake
// binary, its token held in stateDir) through one chat whose prompt holds
// a token-shaped line, and returns the chat once it has ended, with the
// token.
func endedChat(t *testing.T, stateDir string) (chat *children.Chat, tok string) {
	t.Helper()
	kids := children.New(stateDir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	kids.Bin = exe
	pathDir, tok := chatFixture(t)
	if err := state.New(stateDir).Put(state.Record{Token: tok, Server: "wf", Session: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := kids.Create(children.Child{Name: "worker", Client: "claude-code", WorkingDir: t.TempDir(),
		Env: map[string]string{"PATH": pathDir + ":/usr/bin:/bin"}}); err != nil {
		t.Fatal(err)
	}
	chat, err = kids.StartChat("worker", "Run the workflow.\nsession_token: tok-PROMPT-0123456789abcdefgh")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if st, _ := chat.State(); st == children.Complete || st == children.Failed {
			return chat, tok
		}
		if time.Now().After(deadline) {
			t.Fatal("the chat did not end")
		}
	}
}

// A child's chat on the page: the overview, the events read by seq, and
// the stream until the chat ends; tokens as stand-ins, escapes visible.
func TestChatsOnThePage(t *testing.T) {
	s := newServer(t, Options{})
	chat, tok := endedChat(t, s.opts.StateDir)
	// A request of the chat, waiting.
	enqueue(t, approvals.New(s.opts.StateDir), approvals.Request{Client: "claude-code", Tool: "mcp__wf__next_step", Chat: chat.ID})

	noSecrets := func(what, body string) {
		t.Helper()
		for _, bad := range []string{tok, tok[:40], "tok-LINE-ONLY-0123456789abcdefgh", "tok-PROMPT-0123456789abcdefgh", "\u202e", "\x1b", `\u001b`} {
			if strings.Contains(body, bad) {
				t.Errorf("%s holds %q", what, bad)
			}
		}
	}
	w := s.do(s.req("GET", "/api/children", ""))
	noSecrets("children", w.Body.String())
	var list childrenList
	json.Unmarshal(w.Body.Bytes(), &list)
	if len(list.Children) != 1 || len(list.Children[0].Chats) != 1 {
		t.Fatalf("children: %s", w.Body.String())
	}
	cv := list.Children[0].Chats[0]
	if cv.ID != chat.ID || cv.Status != "complete" || cv.Events != 10 || cv.Pending != 1 || !strings.HasPrefix(cv.Prompt, `Run the workflow.\nsession_token: [session_token `) {
		t.Errorf("chat summary %+v", cv)
	}

	w = s.do(s.req("GET", "/api/chat?id="+chat.ID, ""))
	noSecrets("chat", w.Body.String())
	var ce chatEvents
	json.Unmarshal(w.Body.Bytes(), &ce)
	var types []string
	for _, e := range ce.Events {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, " "); got != "start tool_use tool_result tool_use tool_result tool_use tool_result content content complete" || !ce.Done || ce.Next != 10 {
		t.Fatalf("events %s, done %t, next %d", got, ce.Done, ce.Next)
	}
	if e := ce.Events[8]; e.Text != "\\x1b[2Jsee \\u202eevil\nsession_token: [session_token "+e.Text[len("\\x1b[2Jsee \\u202eevil\nsession_token: [session_token "):] || !strings.HasSuffix(e.Text, " held by interceptor]") {
		t.Errorf("the escaped text: %q", e.Text)
	}
	if !strings.Contains(ce.Events[2].Text, "[session_token ") || ce.Events[3].Name != "mcp__wf__next_step" || !strings.Contains(ce.Events[3].Input, `"step": "one"`) {
		t.Errorf("events 2, 3: %+v %+v", ce.Events[2], ce.Events[3])
	}
	json.Unmarshal(s.do(s.req("GET", "/api/chat?id="+chat.ID+"&from=7", "")).Body.Bytes(), &ce)
	if len(ce.Events) != 3 || ce.Events[0].Seq != 7 {
		t.Errorf("from 7: %+v", ce.Events)
	}
	if w := s.do(s.req("GET", "/api/chat?id=0123456789abcdef-1", "")); w.Code != http.StatusNotFound {
		t.Errorf("an unknown chat: %d", w.Code)
	}

	// The stream sends every event from its start, then "end".
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := s.req("GET", "/api/chat/stream?id="+chat.ID+"&from=0", "").WithContext(ctx)
	r.Header.Set("Last-Event-ID", "4") // EventSource reconnecting: goes on from there
	w = s.do(r)
	var names []string
	var got chatEvents
	sc := bufio.NewScanner(strings.NewReader(w.Body.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, line[7:])
		case strings.HasPrefix(line, "data: ") && names[len(names)-1] == "events":
			json.Unmarshal([]byte(line[6:]), &got)
		}
	}
	if strings.Join(names, " ") != "events end" || len(got.Events) != 6 || got.Events[0].Seq != 4 || !got.Done {
		t.Errorf("stream: %v, %d events from %d", names, len(got.Events), got.Events[0].Seq)
	}
	noSecrets("chat stream", w.Body.String())
}

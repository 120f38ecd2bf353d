package children

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/tidwall/gjson"
)

// TestHumanAnswersPrependedToTheNextChat: an answer to a call a child parked
// in chat 1 goes in front of the prompt of its next chat, once, and never
// to another child.
func TestHumanAnswersPrependedToTheNextChat(t *testing.T) {
	s, q := testStore(t)
	a := newChild(t, s, "a", t.TempDir(), nil)
	b := newChild(t, s, "b", t.TempDir(), nil)
	park := humantools.Tool{Name: "request_access", Description: "d", Mode: approvals.ModePark}
	r, err := (&humantools.Asker{Queue: q, Chat: ChatID(a.ID, 1)}).Call(context.Background(), park, `{"what":"db"}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.AnswerInput(r.ID, "granted by the parent", "mcp supervisor"); err != nil {
		t.Fatal(err)
	}
	chatB := &Chat{s: s, Child: b, N: 1, ID: ChatID(b.ID, 1)}
	if got := s.withHumanAnswers(chatB, "go on"); got != "go on" {
		t.Fatalf("another child got the answer: %q", got)
	}
	chat2 := &Chat{s: s, Child: a, N: 2, ID: ChatID(a.ID, 2)}
	got := s.withHumanAnswers(chat2, "go on")
	if !strings.HasPrefix(got, "A person answered") || !strings.Contains(got, "granted by the parent") || !strings.HasSuffix(got, "\n\ngo on") {
		t.Fatalf("chat 2's prompt: %q", got)
	}
	if again := s.withHumanAnswers(&Chat{s: s, Child: a, N: 3, ID: ChatID(a.ID, 3)}, "go on"); again != "go on" {
		t.Fatalf("delivered twice: %q", again)
	}
	got2, err := q.Get(r.ID)
	if err != nil || got2.Status != approvals.Delivered || got2.DeliveredTo != "child chat "+chat2.ID {
		t.Fatalf("record: %+v %v", got2, err)
	}
	// poll shows the question as one.
	if j, err := json.Marshal(approvalOf(got2)); err != nil || !strings.Contains(string(j), `"kind":"input"`) || !strings.Contains(string(j), `"mode":"park"`) {
		t.Fatalf("poll view: %s", j)
	}
}

// A Claude Code child with human_tools: each chat's route serves them
// (tagged with the chat, allowed without a permission prompt), and an
// answer to a call parked in chat 1 reaches the client's prompt (stdin) in
// chat 2, exactly once: chat 3 does not get it again.
func TestHumanToolsChildRunnerPath(t *testing.T) {
	s, q := testStore(t)
	dir := t.TempDir()
	fixture, err := filepath.Abs("testdata/claude-code-chat2.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	stdinLog := filepath.Join(dir, "stdin.log")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\n{ echo '=== chat'; cat; echo; } >> %q\ncat %q\n", filepath.Join(dir, "args.log"), stdinLog, fixture)
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	decl, err := filepath.Abs("testdata/human-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Create(Child{Name: "asker", Client: "claude-code", WorkingDir: t.TempDir(), HumanTools: "testdata/human-tools.json",
		Env: map[string]string{"PATH": dir + ":/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.HumanTools != decl {
		t.Errorf("human_tools stored as %q, want the absolute %q", c.HumanTools, decl)
	}
	run := func(prompt string) *Chat {
		t.Helper()
		chat, err := s.StartChat("asker", prompt)
		if err != nil {
			t.Fatal(err)
		}
		pollUntilDone(t, s, q, chat.ID)
		return chat
	}
	chat1 := run("first")
	mcp, err := os.ReadFile(filepath.Join(chat1.Dir(), "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	args := gjson.GetBytes(mcp, "mcpServers.interceptor.args").String()
	if !strings.Contains(args, `"--chat","`+chat1.ID+`"`) || !strings.Contains(args, `"--human-tools","`+decl+`"`) {
		t.Errorf("chat 1's route does not serve the human tools tagged with the chat: %s", args)
	}
	argv, _ := os.ReadFile(filepath.Join(dir, "args.log"))
	if !strings.Contains(string(argv), "--allowedTools mcp__interceptor__request_access") {
		t.Errorf("the human tool is not allowed without a permission prompt: %s", argv)
	}

	// What the route does when chat 1's model calls request_access.
	tools, err := humantools.Load(decl)
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&humantools.Asker{Queue: q, Chat: chat1.ID}).Call(context.Background(), tools[0], `{"what":"db"}`)
	if err != nil {
		t.Fatal(err)
	}
	const answer = "PARKED-ANSWER-granted"
	if _, err := q.AnswerInput(r.ID, answer, "test"); err != nil {
		t.Fatal(err)
	}
	run("second")
	run("third")
	data, _ := os.ReadFile(stdinLog)
	chats := strings.Split(string(data), "=== chat\n")[1:]
	if len(chats) != 3 {
		t.Fatalf("the client read %d prompts, want 3:\n%s", len(chats), data)
	}
	if strings.Contains(chats[0], answer) || strings.Count(chats[1], answer) != 1 || strings.Contains(chats[2], answer) {
		t.Errorf("the answer should reach chat 2's prompt exactly once, no other:\n%s", data)
	}
	if !strings.HasSuffix(strings.TrimSpace(chats[1]), "second") {
		t.Errorf("chat 2's prompt does not end with its own text: %q", chats[1])
	}
}

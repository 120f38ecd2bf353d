package approvals

import (
	"context"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A request keeps the child chat and tool_use id it was tagged with.
func TestRequestKeepsChatAndToolUseID(t *testing.T) {
	q := New(filepath.Join(t.TempDir(), "state"))
	r, err := q.Enqueue(Request{Client: "codex", Tool: "t", Chat: "0123456789abcdef-2", ToolUseID: "toolu_9", Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Chat != "0123456789abcdef-2" || got.ToolUseID != "toolu_9" {
		t.Errorf("read back chat %q tool_use_id %q", got.Chat, got.ToolUseID)
	}
}

// WatchDir wakes on a file written in the directory.
func TestWatchDirWakes(t *testing.T) {
	dir := t.TempDir()
	w, err := WatchDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	go func() {
		time.Sleep(100 * time.Millisecond)
		os.WriteFile(filepath.Join(dir, "x"), []byte("x"), 0o600)
	}()
	// The poll is 30 s: waking well before it is the watch's doing.
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	t0 := time.Now()
	if err := w.Wait(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if time.Since(t0) > 15*time.Second {
		t.Errorf("woke after %s, not on the write", time.Since(t0))
	}
}

// Ask tags the request it queues with the call's chat.
func TestAskTagsTheChat(t *testing.T) {
	q := New(filepath.Join(t.TempDir(), "state"))
	done := make(chan hooks.Decision, 1)
	go func() {
		a, _ := q.Ask(context.Background(), Policy{Timeout: time.Minute}, Call{Client: "codex", Tool: "t", Chat: "0123456789abcdef-1", ToolUseID: "call_1"})
		done <- a
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rs, err := q.WaitPending(ctx)
	if err != nil || len(rs) != 1 {
		t.Fatalf("pending: %v %v", rs, err)
	}
	if rs[0].Chat != "0123456789abcdef-1" || rs[0].ToolUseID != "call_1" {
		t.Errorf("queued with chat %q tool_use_id %q", rs[0].Chat, rs[0].ToolUseID)
	}
	q.Decide(rs[0].ID, hooks.Decision{Allow: true, By: "test"})
	if a := <-done; !a.Allow {
		t.Errorf("answer %+v", a)
	}
}

// A question keeps its tool's declared input schema (the inbox page lays
// the question out by it); an approval has none.
func TestQuestionKeepsItsInputSchema(t *testing.T) {
	q := New(filepath.Join(t.TempDir(), "state"))
	schema := `{"type":"object","properties":{"what":{"type":"string","description":"the system"}},"required":["what"]}`
	r, err := q.Enqueue(Request{Kind: KindInput, Mode: ModePark, Tool: "request_access", Input: `{"what":"db"}`,
		InputSchema: "{\n  \"type\": \"object\", \"properties\": {\"what\": {\"type\": \"string\", \"description\": \"the system\"}},\n \"required\": [\"what\"]}",
		Deadline:    time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.InputSchema != schema {
		t.Errorf("read back schema %s, want %s", got.InputSchema, schema)
	}
	a, err := q.Enqueue(Request{Tool: "t", InputSchema: `{"type":"object"}`, Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := q.Get(a.ID); got.InputSchema != "" {
		t.Errorf("an approval kept a schema: %s", got.InputSchema)
	}
}

package children

import (
	"context"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/humantools"
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
	if j := ApprovalJSON(got2); !strings.Contains(j, `"kind":"input"`) || !strings.Contains(j, `"mode":"park"`) {
		t.Fatalf("poll view: %s", j)
	}
}

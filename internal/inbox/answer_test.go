package inbox

import (
	"net/http"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/gjson"
)

// A question whose tool declares an answerSchema: the page gets its
// choices; the server refuses an answer that does not fit (whatever the
// page checked), in one line, and leaves the question waiting; an answer
// that fits is taken.
func TestAnswerCheckedAgainstItsSchema(t *testing.T) {
	s := newServer(t, Options{})
	q := approvals.New(s.opts.StateDir)
	ask := enqueue(t, q, approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModeHold, Tool: "pick_env",
		Input: `{"why":"deploy"}`, AnswerSchema: `{"type":"string","enum":["staging","prod"]}`})
	w := s.do(s.req("GET", "/api/pending", ""))
	if got := gjson.Get(w.Body.String(), "items.0.answer_schema.choices").String(); got != `["staging","prod"]` {
		t.Errorf("the page's choices: %s (%s)", got, w.Body.String())
	}
	for _, bad := range []string{"Prod", "staging ", "dev"} {
		w := s.do(s.req("POST", "/api/answer", js(map[string]any{"id": ask.ID, "answer": bad})))
		msg := gjson.Get(w.Body.String(), "error").Str
		if w.Code != http.StatusBadRequest || !strings.Contains(msg, "must be one of: staging, prod") || strings.Contains(msg, "\n") {
			t.Errorf("answer %q: %d %q", bad, w.Code, msg)
		}
	}
	if r, _ := q.Get(ask.ID); r.Status != approvals.Pending {
		t.Fatalf("a refused answer answered it: %s", r.Status)
	}
	w = s.do(s.req("POST", "/api/answer", js(map[string]any{"id": ask.ID, "answer": "prod"})))
	if w.Code != http.StatusOK {
		t.Fatalf("a good answer: %d %s", w.Code, w.Body.String())
	}
	if r, _ := q.Get(ask.ID); r.Status != approvals.Answered || r.Answer != "prod" {
		t.Errorf("after the answer: %s %q", r.Status, r.Answer)
	}
	// Without a schema, any text goes (as before).
	free := enqueue(t, q, approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModeHold, Tool: "ask", Input: `{}`})
	if w := s.do(s.req("POST", "/api/answer", js(map[string]any{"id": free.ID, "answer": "Prod"}))); w.Code != http.StatusOK {
		t.Errorf("a free answer: %d %s", w.Code, w.Body.String())
	}
}

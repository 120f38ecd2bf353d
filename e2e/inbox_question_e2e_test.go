//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// Issue 31 item 8, in headless Chromium: a question whose human tool
// declares an answerSchema with an enum is one button a choice, answered
// with one click; one with bounds is checked on the page before it is
// sent (a wrong answer says why in one line and sends nothing), then
// answered. (The server's own check: internal/inbox
// TestAnswerCheckedAgainstItsSchema.)
func TestInboxQuestionChoices(t *testing.T) {
	parallel(t)
	sc := pageScenario(t)
	q := approvals.New(sc.stateDir)
	ask := func(tool, schema string) string {
		r, err := q.Enqueue(approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModeHold, Client: "claude-code", Session: "e2e-q",
			Tool: tool, Input: `{"why":"the deploy"}`, AnswerSchema: schema, Deadline: time.Now().Add(30 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	env := ask("pick_env", `{"type":"string","enum":["staging","prod"]}`)
	count := ask("how_many", `{"type":"integer","minimum":1,"maximum":10}`)
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	p.until("two questions", `document.querySelectorAll('#waiting-list article.card.question').length === 2`, 10*time.Second)

	envSel := cardSel(env)
	if got := evalJS[string](p, fmt.Sprintf(`[...document.querySelectorAll(%q + ' .choices button')].map((b) => b.textContent).join(',')`, envSel)); got != "staging,prod" {
		t.Errorf("the choices offered: %q", got)
	}
	if evalJS[bool](p, fmt.Sprintf(`!!document.querySelector(%q + ' textarea')`, envSel)) {
		t.Errorf("a question with choices still asks for typing")
	}
	p.press(envSel, ".choices button:nth-of-type(2)")
	if r := waitDecided(t, q, env); r.Status != approvals.Answered || r.Answer != "prod" {
		t.Errorf("after one click on prod: %s %q", r.Status, r.Answer)
	}

	countSel := cardSel(count)
	p.fill(countSel+" textarea.answer-text", "42")
	p.press(countSel, "button.send-answer")
	p.until("the page's refusal", fmt.Sprintf(`document.querySelector(%q + ' p.error').textContent !== ''`, countSel), 5*time.Second)
	if msg := evalJS[string](p, fmt.Sprintf(`document.querySelector(%q + ' p.error').textContent`, countSel)); !strings.Contains(msg, "at most 10") {
		t.Errorf("42 for at most 10: %q", msg)
	}
	time.Sleep(500 * time.Millisecond)
	if r, _ := q.Get(count); r.Status != approvals.Pending {
		t.Fatalf("a refused answer was sent: %s %q", r.Status, r.Answer)
	}
	p.fill(countSel+" textarea.answer-text", "7")
	p.press(countSel, "button.send-answer")
	if r := waitDecided(t, q, count); r.Status != approvals.Answered || r.Answer != "7" {
		t.Errorf("after 7: %s %q", r.Status, r.Answer)
	}
}

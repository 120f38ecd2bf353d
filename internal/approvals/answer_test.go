package approvals

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// An answer is checked against its schema: the type, the enum, the
// bounds; each refusal is one line that says what the answer must be.
func TestCheckAnswer(t *testing.T) {
	for _, c := range []struct {
		schema, answer, want string // want "" = accepted
	}{
		{``, "anything at all", ""},
		{`{"type":"string","enum":["staging","prod"]}`, "prod", ""},
		{`{"type":"string","enum":["staging","prod"]}`, "Prod", "must be one of: staging, prod"},
		{`{"type":"string","enum":["staging","prod\u001b[2J"]}`, "dev", "must be one of: staging, prod\\x1b[2J"},
		{`{"type":"string","minLength":3,"maxLength":5}`, "ab", "at least 3 characters"},
		{`{"type":"string","minLength":3,"maxLength":5}`, "abcdef", "at most 5 characters"},
		{`{"type":"string","maxLength":2}`, "éé", ""},
		{`{"type":"integer","minimum":1,"maximum":10}`, " 7 ", ""},
		{`{"type":"integer","minimum":1,"maximum":10}`, "0", "at least 1"},
		{`{"type":"integer","minimum":1,"maximum":10}`, "11", "at most 10"},
		{`{"type":"integer"}`, "2.5", "whole number"},
		{`{"type":"number"}`, "two", "must be a number"},
		{`{"type":"number"}`, "NaN", "must be a number"},
		{`{"type":"number","enum":[1.5,3]}`, "3", ""},
		{`{"type":"number","enum":[1.5,3]}`, "2", "one of: 1.5, 3"},
		{`{"type":"boolean"}`, "true", ""},
		{`{"type":"boolean"}`, "yes", "true or false"},
		{`{"type":"object"}`, "x", "answerSchema: type"},
	} {
		err := CheckAnswer(c.schema, c.answer)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: refused: %v", c.schema, c.answer, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s %q: %v, want one line with %q", c.schema, c.answer, err, c.want)
		}
	}
}

// A person reads what the answer must be before typing it: the choices,
// the type and the bounds, in one line, control characters made visible;
// nothing when any text will do. Each hint's example answer is taken.
func TestAnswerHint(t *testing.T) {
	for _, c := range []struct{ schema, want, fits string }{
		{``, "", "anything"},
		{`{"type":"string"}`, "", "anything"},
		{`{"type":"string","enum":["staging","prod\u001b[2J"]}`, "one of: staging, prod\\x1b[2J", "staging"},
		{`{"type":"string","minLength":3,"maxLength":5}`, "text of 3 to 5 characters", "abcd"},
		{`{"type":"string","minLength":3}`, "text of at least 3 characters", "abcd"},
		{`{"type":"string","maxLength":5}`, "text of at most 5 characters", "abcd"},
		{`{"type":"integer","minimum":1,"maximum":10}`, "a whole number from 1 to 10", "7"},
		{`{"type":"integer","minimum":1}`, "a whole number, at least 1", "7"},
		{`{"type":"number","maximum":2.5}`, "a number, at most 2.5", "1.5"},
		{`{"type":"number"}`, "a number", "1.5"},
		{`{"type":"number","enum":[1.5,3]}`, "one of: 1.5, 3", "3"},
		{`{"type":"boolean"}`, "true or false", "false"},
		{`{"type":"object"}`, "none can be taken: the question's answerSchema: type", ""},
	} {
		got := AnswerHint(c.schema)
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) || strings.Contains(got, "\n") {
			t.Errorf("AnswerHint(%s) = %q, want %q", c.schema, got, c.want)
		}
		if c.fits != "" {
			if err := CheckAnswer(c.schema, c.fits); err != nil {
				t.Errorf("%s: %q, which fits %q, is refused: %v", c.schema, c.fits, got, err)
			}
		}
	}
}

// The queue's own answer path checks the answerSchema, so every way an
// answer arrives (page, CLI, watch, respond, relay) is refused alike: an
// answer that does not fit is ErrBadAnswer in one line and changes
// nothing; one that fits is taken; a question with a bad stored schema
// takes no answer (fails closed).
func TestAnswerInputChecksTheSchema(t *testing.T) {
	q := newStore(t)
	ask := func(schema string) Request {
		t.Helper()
		r, err := q.Enqueue(Request{Client: "claude-code", Session: "s1", Tool: "pick_env", Input: `{}`, Kind: KindInput,
			Mode: ModeHold, AnswerSchema: schema, Deadline: time.Now().Add(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := ask(`{"type":"string","enum":["staging","prod"]}`)
	for _, bad := range []string{"Prod", "staging ", "dev"} {
		_, err := q.AnswerInput(r.ID, bad, "p")
		if !errors.Is(err, ErrBadAnswer) || err.Error() != "answer refused: the answer must be one of: staging, prod" {
			t.Errorf("answer %q: %v, want ErrBadAnswer in one line", bad, err)
		}
	}
	if got, _ := q.Get(r.ID); got.Status != Pending || got.Answer != "" || got.DecidedBy != "" {
		t.Fatalf("a refused answer changed the question: %+v", got)
	}
	if got, err := q.AnswerInput(r.ID, "prod", "p"); err != nil || got.Status != Answered || got.Answer != "prod" {
		t.Fatalf("a fitting answer: %+v %v", got, err)
	}
	// Answered: a second answer is ErrDecided, not a schema complaint.
	if _, err := q.AnswerInput(r.ID, "dev", "p"); !errors.Is(err, ErrDecided) {
		t.Errorf("a second, unfitting answer: %v, want ErrDecided", err)
	}
	if _, err := q.AnswerInput(ask(`{"type":"integer","maximum":10}`).ID, "42", "p"); !errors.Is(err, ErrBadAnswer) ||
		!strings.Contains(err.Error(), "at most 10") {
		t.Errorf("42 for at most 10: %v", err)
	}
	if _, err := q.AnswerInput(ask(`{"type":"object"}`).ID, "x", "p"); !errors.Is(err, ErrBadAnswer) ||
		!strings.Contains(err.Error(), "answerSchema: type") {
		t.Errorf("a bad stored schema: %v", err)
	}
	if _, err := q.AnswerInput(ask("").ID, "Prod", "p"); err != nil {
		t.Errorf("no schema takes any text: %v", err)
	}
}

package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/tidwall/gjson"
)

// TestSupervisorAnswersHumanTools: a parent agent handles human tools'
// questions with the supervisor's tools as `mcp --role supervisor` serves
// them (respond wrapped for the child-session names): pending lists a held
// and a parked question as kind input with their mode; respond(answer)
// answers, and the held call returns the answer; a second answer is
// refused; allow on a question and answer on an approval are refused with
// errors that say what to do instead.
func TestSupervisorAnswersHumanTools(t *testing.T) {
	q := queue(t)
	decl := []humantools.Tool{
		{Name: "ask_user", Description: "ask", Mode: approvals.ModeHold},
		{Name: "request_access", Description: "park", Mode: approvals.ModePark},
	}
	child := start(t, &Server{Name: "c", Tools: HumanTools(decl, &humantools.Asker{Queue: q, Session: "S", Timeout: 10 * time.Second})})
	sup := start(t, &Server{Name: "s", Tools: WithChildren(SupervisorTools(q, "the parent"), children.New(q.StateDir), q)})
	call := func(s *session, id, tool, args string) gjson.Result {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
		return s.recv()
	}
	text := func(r gjson.Result) gjson.Result { return gjson.Parse(r.Get("result.content.0.text").Str) }

	sup.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	respond := sup.recv().Get(`result.tools.#(name=="respond")`)
	if respond.Get("inputSchema.properties.answer.type").Str != "string" {
		t.Fatalf("respond's schema drops answer: %s", respond.Raw)
	}

	// The parked call returns at once; the held one waits (its reply
	// comes after the answer).
	if r := call(child, "1", "request_access", `{"what":"prod"}`); !strings.Contains(r.Get("result.content.0.text").Str, "A person will answer") {
		t.Fatalf("parked call: %s", r.Raw)
	}
	child.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_user","arguments":{"question":"which repo?"}}}`)
	var pending gjson.Result
	for deadline := time.Now().Add(5 * time.Second); pending.Get("pending.#").Int() < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("pending: %s", pending.Raw)
		}
		pending = text(call(sup, "2", "pending", `{"wait_seconds":1}`))
	}
	hold := pending.Get(`pending.#(tool=="ask_user")`)
	park := pending.Get(`pending.#(tool=="request_access")`)
	if hold.Get("kind").Str != "input" || hold.Get("mode").Str != "hold" || park.Get("kind").Str != "input" || park.Get("mode").Str != "park" ||
		gjson.Get(hold.Get("input").Raw, "question").Str != "which repo?" {
		t.Fatalf("pending lists the questions as %s", pending.Raw)
	}

	// respond(answer): answered, and the held call gets the answer.
	if got := text(call(sup, "3", "respond", `{"id":"`+hold.Get("id").Str+`","answer":"staging"}`)); got.Get("status").Str != "answered" || got.Get("id").Str != hold.Get("id").Str {
		t.Fatalf("respond answer: %s", got.Raw)
	}
	if r := child.recv(); r.Get("id").Int() != 2 || r.Get("result.content.0.text").Str != "staging" || r.Get("result.isError").Bool() {
		t.Fatalf("the held call returned %s", r.Raw)
	}
	if r, _ := q.Get(hold.Get("id").Str); r.Status != approvals.Answered || r.Answer != "staging" || r.DecidedBy != "the parent" {
		t.Fatalf("the held request: %+v", r)
	}

	// A second answer, allow on a question, answer on an approval: refused.
	appr, err := q.Enqueue(approvals.Request{Tool: "Bash", Input: `{"command":"ls"}`, Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, want string }{
		{`{"id":"` + hold.Get("id").Str + `","answer":"prod"}`, "not applied"},
		{`{"approval_id":"` + hold.Get("id").Str + `","answer":"prod"}`, "not applied"},
		{`{"id":"` + park.Get("id").Str + `","allow":true}`, approvals.ErrNeedsAnswer.Error()},
		{`{"id":"` + appr.ID + `","answer":"yes"}`, approvals.ErrNotInput.Error()},
		{`{"id":"` + park.Get("id").Str + `","answer":""}`, "answer must be a non-empty string"},
	} {
		r := call(sup, "4", "respond", c.args)
		if msg := r.Get("result.content.0.text").Str; !r.Get("result.isError").Bool() || !strings.Contains(msg, c.want) {
			t.Errorf("respond %s: %s; want an error with %q", c.args, r.Raw, c.want)
		}
	}
	if r, _ := q.Get(hold.Get("id").Str); r.Answer != "staging" {
		t.Errorf("a refused second answer changed the first: %+v", r)
	}
	for _, id := range []string{park.Get("id").Str, appr.ID} {
		if r, _ := q.Get(id); r.Status != approvals.Pending {
			t.Errorf("a refused respond changed %s: %+v", id, r)
		}
	}

	// The parked question is answered the same way, under the other name.
	if got := text(call(sup, "5", "respond", `{"approval_id":"`+park.Get("id").Str+`","answer":"granted"}`)); got.Get("status").Str != "answered" || got.Get("approval_id").Str != park.Get("id").Str {
		t.Fatalf("respond answer (approval_id): %s", got.Raw)
	}
}

// TestRespondChecksTheAnswerSchema: a question whose tool declares an
// answerSchema lists it in pending, and respond(answer) is refused when
// the answer does not fit (the queue's one line, and the question still
// waits), taken when it does.
func TestRespondChecksTheAnswerSchema(t *testing.T) {
	q := queue(t)
	decl := []humantools.Tool{{Name: "pick_env", Description: "pick", Mode: approvals.ModePark,
		AnswerSchema: `{"type":"string","enum":["staging","prod"]}`}}
	child := start(t, &Server{Name: "c", Tools: HumanTools(decl, &humantools.Asker{Queue: q, Session: "S", Timeout: 10 * time.Second})})
	sup := start(t, &Server{Name: "s", Tools: WithChildren(SupervisorTools(q, "the parent"), children.New(q.StateDir), q)})
	call := func(s *session, id, tool, args string) gjson.Result {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
		return s.recv()
	}
	if r := call(child, "1", "pick_env", `{}`); r.Get("result.isError").Bool() {
		t.Fatalf("parked call: %s", r.Raw)
	}
	pending := gjson.Parse(call(sup, "2", "pending", `{}`).Get("result.content.0.text").Str)
	id := pending.Get("pending.0.id").Str
	if got := pending.Get("pending.0.answer_schema.enum").Raw; got != `["staging","prod"]` {
		t.Fatalf("pending does not say what the answer must be: %s", pending.Raw)
	}
	for _, bad := range []string{"Prod", "dev"} {
		r := call(sup, "3", "respond", `{"id":"`+id+`","answer":"`+bad+`"}`)
		if msg := r.Get("result.content.0.text").Str; !r.Get("result.isError").Bool() ||
			!strings.Contains(msg, "the answer must be one of: staging, prod") || strings.Contains(msg, "\n") {
			t.Errorf("respond %q: %s", bad, r.Raw)
		}
	}
	if r, _ := q.Get(id); r.Status != approvals.Pending || r.Answer != "" {
		t.Fatalf("a refused answer changed the question: %+v", r)
	}
	if got := gjson.Parse(call(sup, "4", "respond", `{"id":"`+id+`","answer":"prod"}`).Get("result.content.0.text").Str); got.Get("status").Str != "answered" {
		t.Fatalf("a fitting answer: %s", got.Raw)
	}
	if r, _ := q.Get(id); r.Answer != "prod" || r.DecidedBy != "the parent" {
		t.Errorf("stored %+v", r)
	}
}

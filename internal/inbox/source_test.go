package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// fakeSource is other machines' queues, as relay.Inbox would give them;
// this machine's history and rules are localSource's (here).
type fakeSource struct {
	localSource
	mu      sync.Mutex
	open    []Open
	decided []string // machine/id:allow
	err     error
}

func (f *fakeSource) Open(context.Context) ([]Open, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Open(nil), f.open...), nil
}

func (f *fakeSource) Get(_ context.Context, machine, id string) (approvals.Request, error) {
	for _, o := range f.open {
		if o.Machine == machine && o.Request.ID == id {
			return o.Request, nil
		}
	}
	return approvals.Request{}, approvals.ErrUnknown
}

func (f *fakeSource) Decide(_ context.Context, machine, id string, d hooks.Decision) (approvals.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return approvals.Request{}, f.err
	}
	f.decided = append(f.decided, machine+"/"+id+":"+map[bool]string{true: "allow", false: "deny"}[d.Allow])
	return approvals.Request{ID: id, Status: approvals.Allowed}, nil
}

func (f *fakeSource) Answer(context.Context, string, string, string, string) (approvals.Request, error) {
	return approvals.Request{}, approvals.ErrNotInput
}

func (f *fakeSource) Changes(ctx context.Context, fn func() bool) error {
	fn()
	<-ctx.Done()
	return nil
}

// With another source, each card names its machine (made visible like
// every string), a silent machine's requests say so, and a decision goes
// to the source with the card's machine; an unreachable one is a 503
// that says nothing was decided.
func TestSourceNamesMachines(t *testing.T) {
	src := &fakeSource{open: []Open{
		{Machine: "devbox", Child: "fixer\x1b[2J", Request: approvals.Request{ID: "0123456789abcdef", Status: approvals.Pending,
			Client: "claude-code", Tool: "Bash", Input: `{"command":"ls"}`, Created: time.Now()}},
		{Machine: "ci-7", Unreachable: true, Request: approvals.Request{ID: "0123456789abcde0", Status: approvals.Pending,
			Client: "codex", Tool: "Bash", Input: `{}`, Created: time.Now()}},
	}}
	s := newServer(t, Options{Source: src})
	src.localSource = localSource{q: approvals.New(s.opts.StateDir)}
	w := s.do(s.req("GET", "/api/pending", ""))
	var p pending
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || len(p.Items) != 2 {
		t.Fatalf("pending: %s", w.Body.String())
	}
	if it := p.Items[0]; it.Machine != "devbox" || it.Unreachable || it.Child != `fixer\x1b[2J` {
		t.Errorf("first card %+v", it)
	}
	if it := p.Items[1]; it.Machine != "ci-7" || !it.Unreachable {
		t.Errorf("second card %+v", it)
	}
	w = s.do(s.req("POST", "/api/decide", `{"id":"0123456789abcdef","allow":true,"machine":"devbox"}`))
	if w.Code != http.StatusOK || strings.Join(src.decided, ",") != "devbox/0123456789abcdef:allow" {
		t.Errorf("decide: %d %s, the source got %v", w.Code, w.Body.String(), src.decided)
	}
	w = s.do(s.req("GET", "/api/request?id=0123456789abcdef&machine=devbox", ""))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"machine":"devbox"`) {
		t.Errorf("request: %d %s", w.Code, w.Body.String())
	}
	src.err = ErrUnreachable
	w = s.do(s.req("POST", "/api/decide", `{"id":"0123456789abcde0","allow":false,"machine":"ci-7"}`))
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("an unreachable machine: %d %s", w.Code, w.Body.String())
	}
}

// Rules stay on each machine: another machine's card offers no "Always"
// (elsewhere, no rule prefix) and a rule asked from it is refused with
// nothing made or decided, even when this machine's queue holds a request
// of the same id; this machine's card (machine "") makes its rule here
// and is decided through the source.
func TestRulesStayOnTheirMachine(t *testing.T) {
	src := &fakeSource{}
	s := newServer(t, Options{Source: src})
	q := approvals.New(s.opts.StateDir)
	src.localSource = localSource{q: q}
	mine := enqueue(t, q, approvals.Request{Client: "claude-code", Session: "s1", Tool: "Bash", Cwd: "/p", Project: "/p",
		Input: `{"command":"git status"}`})
	src.open = []Open{
		{Request: q.Viewer().Request(mine)},
		{Machine: "devbox", Request: approvals.Request{ID: mine.ID, Status: approvals.Pending, Client: "claude-code",
			Tool: "Bash", Input: `{"command":"git status"}`, Project: "/p", Created: time.Now()}},
	}
	var p pending
	w := s.do(s.req("GET", "/api/pending", ""))
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || len(p.Items) != 2 {
		t.Fatalf("pending: %s", w.Body.String())
	}
	if it := p.Items[0]; it.Elsewhere || it.RuleKind != "command" {
		t.Errorf("this machine's card: %+v", it)
	}
	if it := p.Items[1]; !it.Elsewhere || it.RuleKind != "" || it.RulePrefix != "" {
		t.Errorf("devbox's card: %+v", it)
	}
	w = s.do(s.req("POST", "/api/rules/add", `{"id":`+js(mine.ID)+`,"allow":true,"scope":"everywhere","shape":"tool","machine":"devbox"}`))
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "rules stay on each machine") {
		t.Errorf("a rule from devbox's card: %d %s", w.Code, w.Body.String())
	}
	if rs, err := q.Rules(); err != nil || len(rs) != 0 || len(src.decided) != 0 {
		t.Fatalf("after a refused rule: rules %+v %v, decided %v", rs, err, src.decided)
	}
	w = s.do(s.req("POST", "/api/rules/add", `{"id":`+js(mine.ID)+`,"allow":true,"scope":"project","shape":"prefix"}`))
	if w.Code != http.StatusOK {
		t.Fatalf("a rule from this machine's card: %d %s", w.Code, w.Body.String())
	}
	if rs, err := q.Rules(); err != nil || len(rs) != 1 || rs[0].CommandPrefix != "git status" || strings.Join(src.decided, ",") != "/"+mine.ID+":allow" {
		t.Fatalf("after this machine's rule: rules %+v %v, decided %v", rs, err, src.decided)
	}
}

// othersSource is fakeSource that also knows other machines' children.
type othersSource struct {
	fakeSource
	others []MachineChildren
}

func (o *othersSource) OtherChildren() []MachineChildren { return o.others }

// Other machines' children, as their relays publish them (ChildrenJSON of
// their state dir: prompts masked there), are listed after this
// machine's, each naming its machine; what another machine sent is made
// visible again and bounded here; the entry of this machine's own relay
// is not listed twice.
func TestChildrenOfOtherMachines(t *testing.T) {
	// Machine devbox: a child whose chat ran, its prompt holding a token,
	// and a request of the chat waiting.
	box := filepath.Join(t.TempDir(), "devbox")
	chat, tok := endedChat(t, box)
	q := approvals.New(box)
	enqueue(t, q, approvals.Request{Client: "claude-code", Tool: "mcp__wf__next_step", Chat: chat.ID})
	open, _ := q.Pending()
	theirs, err := ChildrenJSON(box, q.Viewer().Requests(open))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(theirs), "tok-PROMPT-0123456789abcdefgh") || strings.Contains(string(theirs), tok[:40]) {
		t.Fatalf("devbox's summary holds a token: %s", theirs)
	}
	// Machine evil: a relay with valid credentials and hostile content.
	var many []childView
	for i := range maxRemoteChildren + 50 {
		many = append(many, childView{ID: fmt.Sprint(i), Name: "x\x1b[2J", Chats: []chatView{{ID: "c", Prompt: "\u202eevil"}}})
	}
	hostile, _ := json.Marshal(childrenList{Children: many})
	src := &othersSource{others: []MachineChildren{
		{Machine: "evil", Children: hostile, Unreachable: true},
		{Machine: "devbox", Children: theirs},
		{Machine: "", Children: theirs}, // this machine's own relay
	}}
	s := newServer(t, Options{Source: src})
	src.localSource = localSource{q: approvals.New(s.opts.StateDir)}
	w := s.do(s.req("GET", "/api/children", ""))
	body := w.Body.String()
	for _, bad := range []string{tok[:40], "tok-PROMPT-0123456789abcdefgh", "\u202e", "\x1b", `\u001b`} {
		if strings.Contains(body, bad) {
			t.Errorf("the children's view holds %q", bad)
		}
	}
	var l childrenList
	if err := json.Unmarshal(w.Body.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Children) != 1+maxRemoteChildren {
		t.Fatalf("%d children listed, want devbox's 1 and evil's %d", len(l.Children), maxRemoteChildren)
	}
	d := l.Children[0]
	if d.Machine != "devbox" || d.Unreachable || d.Name != "worker" || len(d.Chats) != 1 || d.Chats[0].Status != "complete" ||
		d.Chats[0].Pending != 1 || !strings.HasPrefix(d.Chats[0].Prompt, `Run the workflow.\nsession_token: [session_token `) {
		t.Errorf("devbox's child: %+v", d)
	}
	if e := l.Children[1]; e.Machine != "evil" || !e.Unreachable || e.Name != `x\x1b[2J` {
		t.Errorf("evil's first child: %+v", e)
	}
}

package inbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// Every action's body is decoded strictly: a member the action does not
// take, one given twice, or one of another type is refused with one 400
// line naming it, and nothing is decided. A null member counts as absent.
func TestActionsDecodeStrictly(t *testing.T) {
	s := newServer(t, Options{})
	q := approvals.New(s.opts.StateDir)
	r := enqueue(t, q, approvals.Request{Client: "codex", Tool: "t", Input: `{"a":1}`})
	ask := enqueue(t, q, approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModePark, Tool: "request_access", Input: `{"what":"db"}`})
	nonce := strings.Repeat("c1", keyBytes)
	for _, c := range []struct{ path, body, names string }{
		{"/api/decide", fmt.Sprintf(`{"id":%q,"alow":true}`, r.ID), `"alow"`},
		{"/api/decide", fmt.Sprintf(`{"id":%q,"allow":true,"Allow":false}`, r.ID), `"Allow"`},
		{"/api/decide", fmt.Sprintf(`{"id":%q,"allow":false,"allow":true}`, r.ID), `"allow" given twice`},
		{"/api/decide", fmt.Sprintf(`{"id":%q,"allow":"yes"}`, r.ID), `"allow": want true or false`},
		{"/api/decide", fmt.Sprintf(`{"id":%q,"allow":true,"message":7}`, r.ID), `"message": want a string`},
		{"/api/decide", fmt.Sprintf(`{"id":%q,"allow":true,"updated_input":{"a":2}}`, r.ID), `"updated_input": want a string`},
		{"/api/decide", fmt.Sprintf(`{"id":[%q],"allow":true}`, r.ID), `"id": want a string`},
		{"/api/answer", fmt.Sprintf(`{"id":%q,"answer":"yes","extra":1}`, ask.ID), `"extra"`},
		{"/api/answer", fmt.Sprintf(`{"id":%q,"answer":42}`, ask.ID), `"answer": want a string`},
		{"/api/hello", `{"client_nonce":"` + nonce + `","origin":"x"}`, `"origin"`},
		{"/api/hello", `{"client_nonce":12}`, `"client_nonce": want a string`},
		{"/api/session", `{"server_nonce":1,"proof":"x"}`, `"server_nonce": want a string`},
	} {
		w := s.do(s.req("POST", c.path, c.body))
		var m map[string]string
		json.Unmarshal(w.Body.Bytes(), &m)
		if w.Code != http.StatusBadRequest || !strings.Contains(m["error"], c.names) || strings.Contains(m["error"], "\n") {
			t.Errorf("%s %s: %d %q, want 400 naming %s", c.path, c.body, w.Code, m["error"], c.names)
		}
	}
	for _, id := range []string{r.ID, ask.ID} {
		if got, _ := q.Get(id); got.Status != approvals.Pending {
			t.Errorf("a refused action decided %s: %+v", id, got)
		}
	}
	// Null members are absent ones; the page's own bodies pass.
	if w := s.do(s.req("POST", "/api/decide", fmt.Sprintf(`{"id":%q,"allow":true,"message":null,"updated_input":null}`, r.ID))); w.Code != http.StatusOK {
		t.Errorf("an allow with null members: %d %s", w.Code, w.Body.String())
	}
	if w := s.do(s.req("POST", "/api/decide", `{"id":null,"allow":true}`)); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "want id (a string)") {
		t.Errorf("a null id: %d %s", w.Code, w.Body.String())
	}
	if w := s.do(s.req("POST", "/api/answer", fmt.Sprintf(`{"id":%q,"answer":"granted"}`, ask.ID))); w.Code != http.StatusOK {
		t.Errorf("an answer: %d %s", w.Code, w.Body.String())
	}
}

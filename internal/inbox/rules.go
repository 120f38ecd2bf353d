package inbox

import (
	"fmt"
	"net/http"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// Standing rules on the page: made from a request a person is looking at
// ("always allow this, in this project"), which is decided with it;
// listed; revoked. approvals' rules.go says how the approve hook applies
// them.

type (
	// ruleAction makes a rule from request ID and decides ID by it.
	ruleAction struct {
		ID     *string `json:"id"`
		Allow  *bool   `json:"allow"`
		Scope  string  `json:"scope"`
		Shape  string  `json:"shape"`
		Prefix string  `json:"prefix"`
		// Machine is the request's ("" this one): a rule is made only
		// from a request of this machine's queue (Source.Here).
		Machine string `json:"machine"`
	}
	// revokeAction revokes rule ID.
	revokeAction struct {
		ID *string `json:"id"`
	}
)

// ruleItem is a rule as the page shows it.
type ruleItem struct {
	ID      string `json:"id"`
	Allow   bool   `json:"allow"`
	Scope   string `json:"scope"`
	Text    string `json:"text"`
	Created int64  `json:"created"`
	By      string `json:"by,omitempty"`
}

func (s *Server) ruleItem(r approvals.Rule) ruleItem {
	v := s.src.Viewer()
	mask := func(x string) string { return vis(v.Request(approvals.Request{Reason: x}).Reason) }
	return ruleItem{ID: vis(r.ID), Allow: r.Allow, Scope: vis(r.Scope), Text: mask(r.Describe()), Created: ms(r.Created), By: mask(r.By)}
}

func (s *Server) apiRules(w http.ResponseWriter, r *http.Request) {
	rs, err := s.src.Rules()
	if err != nil {
		fail(w, err)
		return
	}
	out := []ruleItem{}
	for _, x := range rs {
		out = append(out, s.ruleItem(x))
	}
	writeJSON(w, map[string]any{"rules": out})
}

// apiRuleAdd is {id, allow, scope, shape, prefix?}: the rule made from
// request id (approvals.RuleFor), then the request decided as the rule
// says. A request already decided keeps its decision; the rule stays.
func (s *Server) apiRuleAdd(w http.ResponseWriter, r *http.Request) {
	var a ruleAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	if a.ID == nil || a.Allow == nil {
		fail(w, fmt.Errorf("%w: want id (a string) and allow (true or false)", errBadRequest))
		return
	}
	if !s.src.Here(a.Machine) {
		fail(w, fmt.Errorf("%w: rules stay on each machine; make one on machine %s with interceptor approvals rules add, or decide this request once",
			ErrElsewhere, vis(a.Machine)))
		return
	}
	req, err := s.src.Held(*a.ID)
	if err != nil {
		fail(w, err)
		return
	}
	rule, err := approvals.RuleFor(req, *a.Allow, a.Scope, a.Shape, a.Prefix, s.by)
	if err != nil {
		fail(w, fmt.Errorf("%w: %v", errBadRequest, err))
		return
	}
	if rule, err = s.src.AddRule(rule); err != nil {
		fail(w, err)
		return
	}
	d := hooks.Decision{Allow: rule.Allow, By: s.by + ", making " + rule.Describe()}
	status := ""
	if got, err := s.src.Decide(r.Context(), a.Machine, req.ID, d); err == nil {
		status = string(got.Status)
	} else {
		status = "rule made; the request was not decided: " + err.Error()
	}
	writeJSON(w, map[string]any{"rule": s.ruleItem(rule), "status": vis(status)})
}

func (s *Server) apiRuleRevoke(w http.ResponseWriter, r *http.Request) {
	var a revokeAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	if a.ID == nil {
		fail(w, fmt.Errorf("%w: want id", errBadRequest))
		return
	}
	rule, err := s.src.RevokeRule(*a.ID)
	if err != nil {
		fail(w, fmt.Errorf("%w: %v", errBadRequest, err))
		return
	}
	writeJSON(w, map[string]any{"rule": s.ruleItem(rule)})
}

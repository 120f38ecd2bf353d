package verify

import (
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
)

// Nested checks the server log of n conversations of fakemodel.NestedScript
// against an awkward workflow server: every workflow call accepted; n
// orchestrator sessions, each with exactly one child session whose
// parent_session_token the server verified as that orchestrator's; each
// session's steps accepted in order, the orchestrator's last one after its
// child started (it went on with its own, older, token); get_status,
// save_checkpoint, resume_checkpoint (with the saved handle) and a
// start_session resuming it from its token accepted once per orchestrator;
// and no token at the other server. It returns one
// line per problem.
func Nested(recs []wfserver.Record, n int) []string {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }

	type sess struct {
		workflow, parent string
		started          int // record index of its start_session
		steps            []string
		lastStep         int // record index of its last accepted next_step
		child            string
		calls            map[string]int // accepted get_status, save_checkpoint, resume_checkpoint
		handle           string         // saved checkpoint handle
	}
	sessions := map[string]*sess{}
	var order []string
	issued := Tokens(recs)
	echoes := 0
	for i, r := range recs {
		if r.Event != "call" {
			continue
		}
		if r.Server == wfserver.RoleOther {
			echoes++
			probs = append(probs, otherServer(r, issued)...)
			continue
		}
		if r.Server != wfserver.RoleWF {
			continue
		}
		if r.Verdict != wfserver.VerdictOK {
			h := hint(r.Verdict)
			if r.Tool == "start_session" && strings.HasPrefix(r.Reason, "parent_session_token") {
				h = ": parent_session_token did not carry the orchestrator's latest token (the stand-in the model handed back was not resolved to it?)"
			}
			if r.Verdict == wfserver.VerdictMissing && r.Args["checkpoint_handle"] != nil {
				h = ": no token was injected into a call carrying checkpoint_handle (keep-if?)"
			}
			bad("%s%s", Describe(r), h)
			continue
		}
		switch {
		case r.Tool == "start_session" && r.ReceivedSID != "" && r.ParentSID == "":
			// Resumed from a token: the same session goes on.
			if s := sessions[r.IssuedSID]; s == nil || r.IssuedSID != r.ReceivedSID {
				bad("%s: resumed a session this log never started", Describe(r))
			} else {
				s.calls["resume"]++
			}
		case r.Tool == "start_session":
			sessions[r.IssuedSID] = &sess{workflow: r.Workflow, parent: r.ParentSID, started: i, calls: map[string]int{}}
			order = append(order, r.IssuedSID)
			if r.ParentSID != "" {
				if p := sessions[r.ParentSID]; p == nil {
					bad("%s: parent session %s is not one this log started", Describe(r), r.ParentSID)
				} else if p.child != "" {
					bad("session %s has two children (%s, %s)", r.ParentSID, p.child, r.IssuedSID)
				} else {
					p.child = r.IssuedSID
				}
			}
		case r.Tool == "next_step":
			s := sessions[r.ReceivedSID]
			if s == nil {
				bad("%s: a session this log never started", Describe(r))
				continue
			}
			step, _ := r.Args["step"].(string)
			s.steps = append(s.steps, step)
			s.lastStep = i
		default:
			s := sessions[r.ReceivedSID]
			if s == nil {
				bad("%s: a session this log never started", Describe(r))
				continue
			}
			s.calls[r.Tool]++
			switch r.Tool {
			case "save_checkpoint":
				s.handle = r.Handle
			case "resume_checkpoint":
				if r.Handle != s.handle {
					bad("resume_checkpoint for session %s used handle %s, saved was %q", r.ReceivedSID, r.Handle, s.handle)
				}
			}
		}
	}

	orchestrators, children := 0, 0
	for _, sid := range order {
		s := sessions[sid]
		if s.parent != "" {
			children++
			if s.workflow != fakemodel.ChildWorkflow {
				bad("child session %s runs workflow %q, want %q", sid, s.workflow, fakemodel.ChildWorkflow)
			}
			if got, want := strings.Join(s.steps, ","), strings.Join(fakemodel.ChildSteps, ","); got != want {
				bad("child session %s: accepted steps [%s], want [%s]", sid, got, want)
			}
			continue
		}
		orchestrators++
		if got, want := strings.Join(s.steps, ","), strings.Join(fakemodel.OrchestratorSteps, ","); got != want {
			bad("orchestrator session %s: accepted steps [%s], want [%s]", sid, got, want)
		}
		if s.child == "" {
			bad("orchestrator session %s has no child session with a verified parent_session_token", sid)
		} else if s.lastStep < sessions[s.child].started {
			bad("orchestrator session %s took its last step before its child started: the scenario did not test going on with an older token", sid)
		}
		for _, tool := range []string{"get_status", "save_checkpoint", "resume_checkpoint", "resume"} {
			if s.calls[tool] != 1 {
				bad("orchestrator session %s: %s accepted %d time(s), want 1", sid, tool, s.calls[tool])
			}
		}
	}
	if orchestrators != n || children != n {
		bad("want %d orchestrator and %d child session(s), the log shows %d and %d", n, n, orchestrators, children)
	}
	if echoes != n {
		bad("want %d call(s) of the other server's echo tool, the log shows %d", n, echoes)
	}
	return probs
}

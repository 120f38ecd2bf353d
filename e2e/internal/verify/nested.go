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
	l := &nestedLog{sessions: map[string]*nestedSession{}, issued: Tokens(recs)}
	for i, r := range recs {
		l.record(i, r)
	}
	l.check(n)
	return l.probs
}

// nestedSession is one workflow session as the log shows it.
type nestedSession struct {
	workflow, parent string
	started          int // record index of its start_session
	steps            []string
	lastStep         int // record index of its last accepted next_step
	child            string
	calls            map[string]int // accepted get_status, save_checkpoint, resume_checkpoint
	handle           string         // saved checkpoint handle
}

// nestedLog is what Nested gathers from the log: the sessions, in the
// order they started, and the problems found.
type nestedLog struct {
	sessions map[string]*nestedSession
	order    []string
	issued   []string
	echoes   int
	probs    []string
}

func (l *nestedLog) bad(format string, a ...any) {
	l.probs = append(l.probs, fmt.Sprintf(format, a...))
}

// record reads the log's record i.
func (l *nestedLog) record(i int, r wfserver.Record) {
	if r.Event != "call" {
		return
	}
	if r.Server == wfserver.RoleOther {
		l.echoes++
		l.probs = append(l.probs, otherServer(r, l.issued)...)
		return
	}
	if r.Server != wfserver.RoleWF {
		return
	}
	if r.Verdict != wfserver.VerdictOK {
		h := hint(r.Verdict)
		if r.Tool == "start_session" && strings.HasPrefix(r.Reason, "parent_session_token") {
			h = ": parent_session_token did not carry the orchestrator's latest token (the stand-in the model handed back was not resolved to it?)"
		}
		if r.Verdict == wfserver.VerdictMissing && r.Args["checkpoint_handle"] != nil {
			h = ": no token was injected into a call carrying checkpoint_handle (keep-if?)"
		}
		l.bad("%s%s", Describe(r), h)
		return
	}
	switch {
	case r.Tool == "start_session" && r.ReceivedSID != "" && r.ParentSID == "":
		// Resumed from a token: the same session goes on.
		if s := l.sessions[r.IssuedSID]; s == nil || r.IssuedSID != r.ReceivedSID {
			l.bad("%s: resumed a session this log never started", Describe(r))
		} else {
			s.calls["resume"]++
		}
	case r.Tool == "start_session":
		l.start(i, r)
	default:
		s := l.sessions[r.ReceivedSID]
		if s == nil {
			l.bad("%s: a session this log never started", Describe(r))
			return
		}
		if r.Tool == "next_step" {
			step, _ := r.Args["step"].(string)
			s.steps = append(s.steps, step)
			s.lastStep = i
			return
		}
		s.calls[r.Tool]++
		switch r.Tool {
		case "save_checkpoint":
			s.handle = r.Handle
		case "resume_checkpoint":
			if r.Handle != s.handle {
				l.bad("resume_checkpoint for session %s used handle %s, saved was %q", r.ReceivedSID, r.Handle, s.handle)
			}
		}
	}
}

// start records a session's start (record i), as a child of its parent
// when it has one.
func (l *nestedLog) start(i int, r wfserver.Record) {
	l.sessions[r.IssuedSID] = &nestedSession{workflow: r.Workflow, parent: r.ParentSID, started: i, calls: map[string]int{}}
	l.order = append(l.order, r.IssuedSID)
	if r.ParentSID == "" {
		return
	}
	switch p := l.sessions[r.ParentSID]; {
	case p == nil:
		l.bad("%s: parent session %s is not one this log started", Describe(r), r.ParentSID)
	case p.child != "":
		l.bad("session %s has two children (%s, %s)", r.ParentSID, p.child, r.IssuedSID)
	default:
		p.child = r.IssuedSID
	}
}

// check holds the sessions to the scenario's n conversations.
func (l *nestedLog) check(n int) {
	orchestrators, children := 0, 0
	for _, sid := range l.order {
		s := l.sessions[sid]
		if s.parent != "" {
			children++
			if s.workflow != fakemodel.ChildWorkflow {
				l.bad("child session %s runs workflow %q, want %q", sid, s.workflow, fakemodel.ChildWorkflow)
			}
			if got, want := strings.Join(s.steps, ","), strings.Join(fakemodel.ChildSteps, ","); got != want {
				l.bad("child session %s: accepted steps [%s], want [%s]", sid, got, want)
			}
			continue
		}
		orchestrators++
		if got, want := strings.Join(s.steps, ","), strings.Join(fakemodel.OrchestratorSteps, ","); got != want {
			l.bad("orchestrator session %s: accepted steps [%s], want [%s]", sid, got, want)
		}
		if s.child == "" {
			l.bad("orchestrator session %s has no child session with a verified parent_session_token", sid)
		} else if s.lastStep < l.sessions[s.child].started {
			l.bad("orchestrator session %s took its last step before its child started: the scenario did not test going on with an older token", sid)
		}
		for _, tool := range []string{"get_status", "save_checkpoint", "resume_checkpoint", "resume"} {
			if s.calls[tool] != 1 {
				l.bad("orchestrator session %s: %s accepted %d time(s), want 1", sid, tool, s.calls[tool])
			}
		}
	}
	if orchestrators != n || children != n {
		l.bad("want %d orchestrator and %d child session(s), the log shows %d and %d", n, n, orchestrators, children)
	}
	if l.echoes != n {
		l.bad("want %d call(s) of the other server's echo tool, the log shows %d", n, l.echoes)
	}
}

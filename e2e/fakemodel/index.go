package fakemodel

import (
	"regexp"
	"strings"
)

// Workflows of IndexScript's sessions.
const (
	IndexWorkflow      = "release-review"
	IndexChildWorkflow = "child-review"
)

// Marks of IndexScript's calls (their activity_id or transition), which say
// which session's index each call must carry.
const (
	MarkBeforeRestart      = "before-restart"       // the first session's
	MarkAfterFailedRestart = "after-failed-restart" // none: the restart failed
	MarkAfterRestart       = "after-restart"        // the restarted session's
	MarkChild              = "child"                // the child's, named by the model
	MarkAfterChild         = "after-child"          // the restarted session's again
)

// childIndex finds the child_session_index of a dispatch_child result in a
// request body as the model reads it (JSON text inside JSON, escaped once
// or twice): the value itself, or a stand-in where interceptor put one.
var childIndex = regexp.MustCompile(`child_session_index[\\"\s:]+(\[[^\]]*held by interceptor\]|[A-Z2-7]{6})`)

// IndexScript is a conversation with a workflow server named Server whose
// sessions are named by a session_index (the indexserver), in which the
// model never types an index it did not read: it starts a session, makes
// two calls that need the index, restarts the session (a second
// start_session); when the restart failed (its result says no "started"),
// it makes one call (which must carry no index, or be refused by the proxy)
// and starts again; then two calls, dispatch_child, one call naming the
// child's index (read from the dispatch_child result as the model saw it)
// and two calls that must carry the restarted session's index again. Turns:
//
//	start_session {workflow_id}
//	get_activity {activity_id: before-restart}
//	next_activity {transition: before-restart}
//	start_session {workflow_id}                       (restart)
//	[get_activity {activity_id: after-failed-restart}  (only when the restart failed)
//	 start_session {workflow_id}]
//	get_activity {activity_id: after-restart}
//	next_activity {transition: after-restart}
//	dispatch_child {workflow_id: child-review}
//	get_activity {activity_id: child, session_index: <child_session_index>}
//	next_activity {transition: after-child}
//	get_activity {activity_id: after-child}
//	then FinalText
type IndexScript struct{ Server string }

// RestartFailed reports whether a start_session result, as the model read
// it, started nothing.
func RestartFailed(result string) bool {
	for _, line := range strings.Split(result, "\n") {
		if strings.TrimSpace(line) == "started" {
			return false
		}
	}
	return true
}

// Plan implements Script.
func (s IndexScript) Plan(c Conversation, tools []Tool) (Action, bool) {
	wf := func(name string) (Tool, bool) { return findTool(tools, s.Server, name) }
	start, ok1 := wf("start_session")
	get, ok2 := wf("get_activity")
	next, ok3 := wf("next_activity")
	dispatch, ok4 := wf("dispatch_child")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return Action{Text: SideText}, false
	}
	startArgs := map[string]any{"workflow_id": IndexWorkflow}
	turns := []Action{
		{Tool: start, Args: startArgs},
		{Tool: get, Args: map[string]any{"activity_id": MarkBeforeRestart}},
		{Tool: next, Args: map[string]any{"transition": MarkBeforeRestart}},
		{Tool: start, Args: startArgs},
	}
	if len(c.Results) >= len(turns) && RestartFailed(c.Results[len(turns)-1]) {
		turns = append(turns,
			Action{Tool: get, Args: map[string]any{"activity_id": MarkAfterFailedRestart}},
			Action{Tool: start, Args: startArgs})
	}
	child := MissingValue
	if len(c.Results) > len(turns)+2 {
		if m := childIndex.FindSubmatch(c.Body); m != nil {
			child = string(m[1])
		}
	}
	turns = append(turns,
		Action{Tool: get, Args: map[string]any{"activity_id": MarkAfterRestart}},
		Action{Tool: next, Args: map[string]any{"transition": MarkAfterRestart}},
		Action{Tool: dispatch, Args: map[string]any{"workflow_id": IndexChildWorkflow}},
		Action{Tool: get, Args: map[string]any{"activity_id": MarkChild, "session_index": child}},
		Action{Tool: next, Args: map[string]any{"transition": MarkAfterChild}},
		Action{Tool: get, Args: map[string]any{"activity_id": MarkAfterChild}},
	)
	if i := len(c.Results); i < len(turns) {
		return turns[i], true
	}
	return Action{Text: FinalText}, true
}

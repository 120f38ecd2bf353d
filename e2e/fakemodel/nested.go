package fakemodel

import (
	"regexp"
	"strings"
)

// Workflows of NestedScript's two sessions.
const (
	OrchestratorWorkflow = "release-review"
	ChildWorkflow        = "child-review"
)

// Steps of NestedScript's sessions, in order.
var (
	OrchestratorSteps = []string{"one", "two"}
	ChildSteps        = []string{"child-one"}
)

// NestedToolCalls is the number of tool calls of NestedScript's conversation.
const NestedToolCalls = 10

// MissingValue is what NestedScript passes when an earlier result did not
// hold the value it looks for: the server then rejects the call.
const MissingValue = "E2E-VALUE-NOT-FOUND-IN-RESULT"

// NestedScript is issue 11's conversation with an awkward workflow server
// (wfserver Config.Awkward) named WFServer: an orchestrator session starts
// a nested child session, handing over its own token as
// parent_session_token, and later goes on with that token; then a _meta-only
// status call and a checkpoint saved and resumed by handle. The model never
// types a token it did not read: the values it hands back are read from
// earlier results as the model saw them (a stand-in where the token was
// redacted); last, it resumes the orchestrator's session from the token it
// read, as a user resuming a saved session would. Turns, by the number of
// tool results so far:
//
//	0: start_session {workflow_id: release-review}
//	1: next_step {step: one}                       (token injected)
//	2: <other>.echo {text}
//	3: start_session {workflow_id: child-review, parent_session_token: <value of result 1's session_token line>}
//	4: next_step {step: child-one}                 (token injected: the child's)
//	5: next_step {step: two, session_token: <value of result 1's session_token line>}
//	6: get_status {}                               (token injected)
//	7: save_checkpoint {}                          (token injected)
//	8: resume_checkpoint {checkpoint_handle: <handle in result 7>} (token injected)
//	9: start_session {resume_token: <value of result 8's session_token line>}
//	then FinalText
type NestedScript struct {
	WFServer, OtherServer, EchoText string
}

var (
	tokenLine  = regexp.MustCompile(`(?m)^session_token: ([^\n]+)$`)
	handleWord = regexp.MustCompile(`ckpt_[0-9a-f]+`)
)

// LineValue returns the value of the last line of text that is exactly
// "session_token: <value>" (not indented: the real line of an awkward
// answer, after prose and code mentioning session_token), or MissingValue.
func LineValue(text string) string {
	m := tokenLine.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return MissingValue
	}
	return strings.TrimSpace(m[len(m)-1][1])
}

// Plan implements Script.
func (n NestedScript) Plan(c Conversation, tools []Tool) (Action, bool) {
	wf := func(name string) (Tool, bool) { return findTool(tools, n.WFServer, name) }
	start, ok1 := wf("start_session")
	next, ok2 := wf("next_step")
	if !ok1 || !ok2 {
		return Action{Text: SideText}, false
	}
	status, _ := wf("get_status")
	save, _ := wf("save_checkpoint")
	resume, _ := wf("resume_checkpoint")
	echo, _ := findTool(tools, n.OtherServer, "echo")
	result := func(i int) string {
		if i < len(c.Results) {
			return c.Results[i]
		}
		return ""
	}
	handle := handleWord.FindString(result(7))
	if handle == "" {
		handle = MissingValue
	}
	turns := []Action{
		{Tool: start, Args: map[string]any{"workflow_id": OrchestratorWorkflow}},
		{Tool: next, Args: map[string]any{"step": OrchestratorSteps[0]}},
		{Tool: echo, Args: map[string]any{"text": n.EchoText}},
		{Tool: start, Args: map[string]any{"workflow_id": ChildWorkflow, "parent_session_token": LineValue(result(1))}},
		{Tool: next, Args: map[string]any{"step": ChildSteps[0]}},
		{Tool: next, Args: map[string]any{"step": OrchestratorSteps[1], "session_token": LineValue(result(1))}},
		{Tool: status, Args: map[string]any{}},
		{Tool: save, Args: map[string]any{}},
		{Tool: resume, Args: map[string]any{"checkpoint_handle": handle}},
		{Tool: start, Args: map[string]any{"resume_token": LineValue(result(8))}},
	}
	if i := len(c.Results); i < len(turns) {
		if !turns[i].IsTool() {
			return Action{Text: "E2E: a tool of the nested script is not offered"}, true
		}
		return turns[i], true
	}
	return Action{Text: FinalText}, true
}

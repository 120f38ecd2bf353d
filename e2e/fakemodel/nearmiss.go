package fakemodel

import "regexp"

// NearMissWorkflow is the workflow NearMissScript starts: its name makes
// the token server's tokens about 480 characters long (the token's claims
// carry it twice), as long as the workflow server's were when a model
// inserted two characters into one (the bug this project started from).
const NearMissWorkflow = "release-review-near-miss-repair-e2e"

// NearMissScript plays a model that copies the session_token it was shown
// (Codex shows the real one) and inserts two characters into it:
//
//	0: <Server>.start_session {workflow_id: NearMissWorkflow}
//	1: <Server>.next_step {step: one, session_token: NearMiss(<the token result 0 shows>)}
//	2: <Server>.next_step {step: two}          (the hook injects the token)
//	then FinalText
type NearMissScript struct{ Server string }

var shownToken = regexp.MustCompile(`session_token: (\S+)`)

// ShownToken is the value of the last "session_token: X" in a result as
// the model read it, or MissingValue.
func ShownToken(result string) string {
	m := shownToken.FindAllStringSubmatch(result, -1)
	if len(m) == 0 {
		return MissingValue
	}
	return m[len(m)-1][1]
}

// NearMiss is tok with two hex characters inserted 32 characters before its
// end (inside the HMAC of the token server's tokens).
func NearMiss(tok string) string {
	at := max(0, len(tok)-32)
	return tok[:at] + "3f" + tok[at:]
}

// Plan implements Script.
func (s NearMissScript) Plan(c Conversation, tools []Tool) (Action, bool) {
	start, ok1 := findTool(tools, s.Server, "start_session")
	next, ok2 := findTool(tools, s.Server, "next_step")
	if !ok1 || !ok2 {
		return Action{Text: SideText}, false
	}
	shown := MissingValue
	if len(c.Results) > 0 {
		shown = ShownToken(c.Results[0])
	}
	turns := []Action{
		{Tool: start, Args: map[string]any{"workflow_id": NearMissWorkflow}},
		{Tool: next, Args: map[string]any{"step": Steps[0], "session_token": NearMiss(shown)}},
		{Tool: next, Args: map[string]any{"step": Steps[1]}},
	}
	if i := len(c.Results); i < len(turns) {
		return turns[i], true
	}
	return Action{Text: FinalText}, true
}

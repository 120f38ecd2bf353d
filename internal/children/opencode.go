package children

import (
	"github.com/tidwall/gjson"
)

// opencodeNorm reads hooks.OpenCodeJSON, one chat's output of opencode
// run --format json; the session id comes from its first event.
type opencodeNorm struct {
	session, lastText string
	started           bool
}

func (n *opencodeNorm) Session() string { return n.session }

// Line reads one `run --format json` line: the first line naming the
// session is the start, text parts the content, a finished tool part both
// the tool_use and its tool_result, and a step_finish that does not call
// tools the end.
func (n *opencodeNorm) Line(line []byte) []Normalized {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	var out []Normalized
	if s := j.Get("sessionID").Str; s != "" && !n.started {
		n.session, n.started = s, true
		out = append(out, started(line, s))
	}
	part := j.Get("part")
	switch j.Get("type").Str {
	case "text":
		n.lastText = part.Get("text").Str
		out = append(out, content(line, n.lastText))
	case "tool_use":
		st := part.Get("state")
		id := part.Get("callID").Str
		out = append(out, toolUse(line, id, part.Get("tool").Str, rawInput(st.Get("input"))))
		switch st.Get("status").Str {
		case "completed":
			out = append(out, toolResult(line, id, st.Get("output").Str, false))
		case "error":
			out = append(out, toolResult(line, id, firstNonEmpty(st.Get("error").Str, st.Get("error").Raw), true))
		}
	case "step_finish":
		if r := part.Get("reason").Str; r != "tool-calls" {
			out = append(out, completed(line, Complete, n.lastText, ""))
		}
	case "error":
		out = append(out, completed(line, Failed, "",
			firstNonEmpty(j.Get("error.data.message").Str, j.Get("error.message").Str, j.Get("error").Raw)))
	}
	return out
}

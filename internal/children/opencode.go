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
func (n *opencodeNorm) Line(line []byte) []string {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	var out []string
	if s := j.Get("sessionID").Str; s != "" && !n.started {
		n.session, n.started = s, true
		out = append(out, event(line, "start", "session", s))
	}
	part := j.Get("part")
	switch j.Get("type").Str {
	case "text":
		n.lastText = part.Get("text").Str
		out = append(out, event(line, "content", "text", n.lastText))
	case "tool_use":
		st := part.Get("state")
		id := part.Get("callID").Str
		out = append(out, event(line, "tool_use", "id", id, "name", part.Get("tool").Str, "input", st.Get("input")))
		switch st.Get("status").Str {
		case "completed":
			out = append(out, event(line, "tool_result", "tool_use_id", id, "content", st.Get("output").Str, "is_error", false))
		case "error":
			out = append(out, event(line, "tool_result", "tool_use_id", id, "content", firstNonEmpty(st.Get("error").Str, st.Get("error").Raw), "is_error", true))
		}
	case "step_finish":
		if r := part.Get("reason").Str; r != "tool-calls" {
			out = append(out, event(line, "complete", "status", string(Complete), "result", n.lastText))
		}
	case "error":
		out = append(out, event(line, "complete", "status", string(Failed),
			"error", firstNonEmpty(j.Get("error.data.message").Str, j.Get("error.message").Str, j.Get("error").Raw)))
	}
	return out
}

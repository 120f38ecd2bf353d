package children

import (
	"strings"

	"github.com/tidwall/gjson"
)

// geminiNorm reads hooks.GeminiStreamJSON, one chat's output of gemini
// --output-format stream-json.
type geminiNorm struct {
	session, lastError string
	text               strings.Builder // the assistant's text of the turn
}

func (n *geminiNorm) Session() string { return n.session }

// Line reads one stream-json line: init is the start, assistant messages
// (deltas) the content, tool_use and tool_result the tools, result the end.
func (n *geminiNorm) Line(line []byte) []string {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	switch j.Get("type").Str {
	case "init":
		n.session = j.Get("session_id").Str
		return []string{event(line, "start", "session", n.session, "model", j.Get("model").Str)}
	case "message":
		if j.Get("role").Str == "assistant" {
			n.text.WriteString(j.Get("content").Str)
			return []string{event(line, "content", "text", j.Get("content").Str)}
		}
	case "tool_use":
		return []string{event(line, "tool_use", "id", j.Get("tool_id").Str, "name", j.Get("tool_name").Str, "input", j.Get("parameters"))}
	case "tool_result":
		isErr := j.Get("status").Str != "success"
		content := j.Get("output").Str
		if content == "" && isErr {
			content = j.Get("error.message").Str
		}
		return []string{event(line, "tool_result", "tool_use_id", j.Get("tool_id").Str, "content", content, "is_error", isErr)}
	case "error":
		n.lastError = firstNonEmpty(j.Get("message").Str, j.Get("error.message").Str)
	case "result":
		if j.Get("status").Str == "success" {
			return []string{event(line, "complete", "status", string(Complete), "result", n.text.String())}
		}
		return []string{event(line, "complete", "status", string(Failed), "result", n.text.String(),
			"error", firstNonEmpty(j.Get("error.message").Str, n.lastError, "status "+j.Get("status").Str))}
	}
	return nil
}

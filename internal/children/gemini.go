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
func (n *geminiNorm) Line(line []byte) []Normalized {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	switch j.Get("type").Str {
	case "init":
		n.session = j.Get("session_id").Str
		ev := started(line, n.session)
		ev.Model = j.Get("model").Str
		return []Normalized{ev}
	case "message":
		if j.Get("role").Str == "assistant" {
			n.text.WriteString(j.Get("content").Str)
			return []Normalized{content(line, j.Get("content").Str)}
		}
	case "tool_use":
		return []Normalized{toolUse(line, j.Get("tool_id").Str, j.Get("tool_name").Str, rawInput(j.Get("parameters")))}
	case "tool_result":
		isErr := j.Get("status").Str != "success"
		text := j.Get("output").Str
		if text == "" && isErr {
			text = j.Get("error.message").Str
		}
		return []Normalized{toolResult(line, j.Get("tool_id").Str, text, isErr)}
	case "error":
		n.lastError = firstNonEmpty(j.Get("message").Str, j.Get("error.message").Str)
	case "result":
		if j.Get("status").Str == "success" {
			return []Normalized{completed(line, Complete, n.text.String(), "")}
		}
		return []Normalized{completed(line, Failed, n.text.String(),
			firstNonEmpty(j.Get("error.message").Str, n.lastError, "status "+j.Get("status").Str))}
	}
	return nil
}

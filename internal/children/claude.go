package children

import (
	"github.com/tidwall/gjson"
)

// claudeNorm reads hooks.ClaudeStreamJSON, one chat's output of claude -p
// --output-format stream-json --verbose.
type claudeNorm struct{ session string }

func (n *claudeNorm) Session() string { return n.session }

// Line reads one stream-json line: system/init is the start, assistant
// text and tool_use blocks, user tool_result blocks, and result the end.
func (n *claudeNorm) Line(line []byte) []Normalized {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	if s := j.Get("session_id").Str; s != "" {
		n.session = s
	}
	var out []Normalized
	switch j.Get("type").Str {
	case "system":
		if j.Get("subtype").Str == "init" {
			ev := started(line, j.Get("session_id").Str)
			ev.Model, ev.Cwd = j.Get("model").Str, j.Get("cwd").Str
			out = append(out, ev)
		}
	case "assistant":
		j.Get("message.content").ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "text":
				out = append(out, content(line, b.Get("text").Str))
			case "tool_use":
				out = append(out, toolUse(line, b.Get("id").Str, b.Get("name").Str, rawInput(b.Get("input"))))
			}
			return true
		})
	case "user":
		j.Get("message.content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str == "tool_result" {
				out = append(out, toolResult(line, b.Get("tool_use_id").Str, textOf(b.Get("content")), b.Get("is_error").Bool()))
			}
			return true
		})
	case "result":
		st := Complete
		if j.Get("is_error").Bool() || j.Get("subtype").Str != "success" {
			st = Failed
		}
		ev := completed(line, st, j.Get("result").Str, "")
		if st == Failed {
			ev.Error = firstNonEmpty(j.Get("result").Str, j.Get("subtype").Str)
		}
		out = append(out, ev)
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

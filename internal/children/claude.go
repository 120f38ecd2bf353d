package children

import (
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// claudeNorm reads hooks.ClaudeStreamJSON, one chat's output of claude -p
// --output-format stream-json --verbose.
type claudeNorm struct{ session string }

func (n *claudeNorm) Session() string { return n.session }

// Line reads one stream-json line: system/init is the start, assistant
// text and tool_use blocks, user tool_result blocks, and result the end.
func (n *claudeNorm) Line(line []byte) []string {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	if s := j.Get("session_id").Str; s != "" {
		n.session = s
	}
	var out []string
	switch j.Get("type").Str {
	case "system":
		if j.Get("subtype").Str == "init" {
			out = append(out, event(line, "start", "session", j.Get("session_id").Str, "model", j.Get("model").Str, "cwd", j.Get("cwd").Str))
		}
	case "assistant":
		j.Get("message.content").ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "text":
				out = append(out, event(line, "content", "text", b.Get("text").Str))
			case "tool_use":
				out = append(out, event(line, "tool_use", "id", b.Get("id").Str, "name", b.Get("name").Str, "input", b.Get("input")))
			}
			return true
		})
	case "user":
		j.Get("message.content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str == "tool_result" {
				out = append(out, event(line, "tool_result", "tool_use_id", b.Get("tool_use_id").Str,
					"content", textOf(b.Get("content")), "is_error", b.Get("is_error").Bool()))
			}
			return true
		})
	case "result":
		st := Complete
		if j.Get("is_error").Bool() || j.Get("subtype").Str != "success" {
			st = Failed
		}
		ev := event(line, "complete", "status", string(st), "result", j.Get("result").Str)
		if st == Failed {
			ev, _ = sjson.Set(ev, "error", firstNonEmpty(j.Get("result").Str, j.Get("subtype").Str))
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

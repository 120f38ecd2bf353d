package children

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// codexNorm reads hooks.CodexJSONL, one chat's output of codex exec
// --json; the thread id (the session) comes from its thread.started event.
type codexNorm struct {
	session, lastText, lastError string
}

func (n *codexNorm) Session() string { return n.session }

// Line reads one `exec --json` line: thread.started is the start, items
// (agent messages, MCP tool calls, commands) the content and tools, and
// turn.completed or turn.failed the end.
func (n *codexNorm) Line(line []byte) []Normalized {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	item := j.Get("item")
	switch typ := j.Get("type").Str; typ {
	case "thread.started":
		n.session = j.Get("thread_id").Str
		return []Normalized{started(line, n.session)}
	case "item.started", "item.completed":
		switch item.Get("type").Str {
		case "agent_message":
			if typ == "item.completed" {
				n.lastText = item.Get("text").Str
				return []Normalized{content(line, n.lastText)}
			}
		case "mcp_tool_call":
			name := "mcp__" + item.Get("server").Str + "__" + item.Get("tool").Str
			if typ == "item.started" {
				return []Normalized{toolUse(line, item.Get("id").Str, name, rawInput(item.Get("arguments")))}
			}
			text := textOf(item.Get("result.content"))
			isErr := item.Get("status").Str == "failed" || (item.Get("error").Exists() && item.Get("error").Type != gjson.Null)
			if isErr && text == "" {
				text = firstNonEmpty(item.Get("error.message").Str, item.Get("error").String())
			}
			return []Normalized{toolResult(line, item.Get("id").Str, text, isErr)}
		case "command_execution":
			if typ == "item.started" {
				return []Normalized{toolUse(line, item.Get("id").Str, "shell", commandInput(item.Get("command")))}
			}
			isErr := item.Get("status").Str == "failed" || (item.Get("exit_code").Exists() && item.Get("exit_code").Int() != 0)
			return []Normalized{toolResult(line, item.Get("id").Str, item.Get("aggregated_output").Str, isErr)}
		}
	case "error":
		n.lastError = j.Get("message").Str
	case "turn.completed":
		return []Normalized{completed(line, Complete, n.lastText, "")}
	case "turn.failed":
		return []Normalized{completed(line, Failed, "", firstNonEmpty(j.Get("error.message").Str, n.lastError, "the turn failed"))}
	}
	return nil
}

// commandInput is a shell command as a tool input object.
func commandInput(cmd gjson.Result) any {
	return struct {
		Command json.RawMessage `json:"command"`
	}{json.RawMessage(firstNonEmpty(cmd.Raw, `""`))}
}

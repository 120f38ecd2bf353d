package children

import (
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
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
func (n *codexNorm) Line(line []byte) []string {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	item := j.Get("item")
	switch typ := j.Get("type").Str; typ {
	case "thread.started":
		n.session = j.Get("thread_id").Str
		return []string{event(line, "start", "session", n.session)}
	case "item.started", "item.completed":
		switch item.Get("type").Str {
		case "agent_message":
			if typ == "item.completed" {
				n.lastText = item.Get("text").Str
				return []string{event(line, "content", "text", n.lastText)}
			}
		case "mcp_tool_call":
			name := "mcp__" + item.Get("server").Str + "__" + item.Get("tool").Str
			if typ == "item.started" {
				return []string{event(line, "tool_use", "id", item.Get("id").Str, "name", name, "input", item.Get("arguments"))}
			}
			content := textOf(item.Get("result.content"))
			isErr := item.Get("status").Str == "failed" || (item.Get("error").Exists() && item.Get("error").Type != gjson.Null)
			if isErr && content == "" {
				content = firstNonEmpty(item.Get("error.message").Str, item.Get("error").String())
			}
			return []string{event(line, "tool_result", "tool_use_id", item.Get("id").Str, "content", content, "is_error", isErr)}
		case "command_execution":
			if typ == "item.started" {
				return []string{event(line, "tool_use", "id", item.Get("id").Str, "name", "shell", "input", commandInput(item.Get("command")))}
			}
			isErr := item.Get("status").Str == "failed" || (item.Get("exit_code").Exists() && item.Get("exit_code").Int() != 0)
			return []string{event(line, "tool_result", "tool_use_id", item.Get("id").Str, "content", item.Get("aggregated_output").Str, "is_error", isErr)}
		}
	case "error":
		n.lastError = j.Get("message").Str
	case "turn.completed":
		return []string{event(line, "complete", "status", string(Complete), "result", n.lastText)}
	case "turn.failed":
		return []string{event(line, "complete", "status", string(Failed), "error", firstNonEmpty(j.Get("error.message").Str, n.lastError, "the turn failed"))}
	}
	return nil
}

// commandInput is a shell command as a tool input object.
func commandInput(cmd gjson.Result) gjson.Result {
	in, _ := sjson.SetRaw(`{}`, "command", firstNonEmpty(cmd.Raw, `""`))
	return gjson.Parse(in)
}

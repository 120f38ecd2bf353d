package hooks

// Claude Code's --permission-prompt-tool: the other route to a supervisor,
// an MCP tool (interceptor mcp --role child, tool permit) that Claude Code
// asks instead of the user. What Claude Code sends it and expects back
// lives here, with the rest of what Claude Code does.

// PermitClient is the client this file describes: the one whose
// --permission-prompt-tool the MCP permit tool answers, and which tells the
// MCP servers it starts its session id in PermitSessionEnv. What reaches
// interceptor by either route is that client's.
var PermitClient = &ClaudeCodeClient

// PermitSessionEnv is the variable through which Claude Code tells the MCP
// servers it starts (and its hooks) its session id.
const PermitSessionEnv = "CLAUDE_CODE_SESSION_ID"

// PermitReply renders a decision as a permission-prompt tool's answer: one
// text block whose text is exactly {"behavior":"allow","updatedInput":{…}}
// or {"behavior":"deny","message":"…"}; anything appended breaks it. Claude
// Code runs an allowed call with updatedInput, so an allow without new
// input sends input, the call's own arguments (compact JSON).
func PermitReply(d Decision, input string) []byte {
	if !d.Allow {
		b, _ := reply(field{"behavior", "deny"}, field{"message", d.denyReason()})
		return b
	}
	if d.UpdatedInput != "" {
		input = d.UpdatedInput
	}
	b, _ := reply(field{"behavior", "allow"}, field{"updatedInput", rawJSON(input)})
	return b
}

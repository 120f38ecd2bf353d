package hooks

import "strings"

// This file is the one home of how the clients spell the tools of an MCP
// server in the tool names their hooks receive: the spelling functions
// below, of which each Client's Naming (in the client's file) picks its
// own, and the matching built on them. Install's matchers, doctor's checks and the
// hooks' own matching (inject, capture, clear, approve) all ask here; a
// spelling learned from a real client changes in this file only.
// internal/hooks/testdata/names/observed.json records what the real clients
// were seen to send.

// ToolNaming is one client's spelling of a server's tools.
type ToolNaming struct {
	// Prefix is what the client puts before a tool's own name for server.
	Prefix func(server string) string
	// Also is one more prefix the client may use (nil: none).
	Also func(server string) string
	// PluginForm: the client names a plugin's servers
	// mcp__plugin_<plugin>_<server>__<tool> too (Claude Code).
	PluginForm bool
	// HashedIfUnclean: a server whose name holds anything but
	// [A-Za-z0-9_-] has every tool named with "_<8 hex>" at the end (Cline).
	HashedIfUnclean bool
}

// The spellings, each named after its shape, with the clients that use it.

// mcpDunder is mcp__<server>__<tool>, anything but [A-Za-z0-9_-] in the
// server name becoming '_' (Claude Code; Cursor's documented other form).
func mcpDunder(s string) string { return "mcp__" + SanitizeName(s) + "__" }

// mcpDunderWord is Codex's: 0.169.0 turns '-' into '_' too, so a server
// "workflow-server" has tools mcp__workflow_server__<tool>. Two servers
// that sanitize alike (wf-server, wf_server) both get "_<12 hex>" after the
// server part, which names neither: those tools are never matched (never
// guess).
func mcpDunderWord(s string) string { return "mcp__" + sanitizeWord(s) + "__" }

// mcpUnderscore is mcp_<server>_<tool> with both verbatim (Gemini CLI:
// mcp_wf.v2_probe). The hooks do not parse it: Gemini CLI sends the
// configured name in mcp_context.server_name; the prefix is for install's
// matchers.
func mcpUnderscore(s string) string { return "mcp_" + s + "_" }

// serverUnderscore is <server>_<tool>, sanitized as Claude Code does
// (OpenCode, and Kilo CLI, which is OpenCode underneath).
func serverUnderscore(s string) string { return SanitizeName(s) + "_" }

// mcpColon is MCP:<server>:<tool> (Cursor, documented only).
func mcpColon(s string) string { return "MCP:" + s + ":" }

// serverDash is <server>-<tool>, anything but [A-Za-z0-9_-] in either
// becoming '-' (Copilot CLI 1.0.102: wf.v2's tools are wf-v2-<tool>; "wf
// server"'s wf-server-<tool>, which collides with wf-server's).
func serverDash(s string) string { return sanitizeTo(s, '-') + "-" }

// serverDunder is <server>__<tool> (Cline 3.0.65). A whole name with
// anything but [A-Za-z0-9_-] in the server's name or the tool's becomes its
// sanitized form plus "_<8 hex>" (wf.v2's probe: wf_v2__probe_770cc911),
// one longer than 64 characters its sanitized start plus "_<8 hex>"
// (cline.go refuses those: the tool's name is cut).
func serverDunder(s string) string { return SanitizeName(s) + "__" }

// serverTripleUnderscore is <server>___<tool>, '.' in the server's name
// becoming '-' (Droid 0.225.2: wf.v2's tools are wf-v2___<tool>; it did not
// start a server named "wf server").
func serverTripleUnderscore(s string) string { return sanitizeTo(s, '-') + "___" }

// ToolPrefix is the prefix the client gives the tools of server in hook
// payloads, e.g. "mcp__workflow_server__" for Codex and "workflow-server".
// ok is false for an empty server.
func (c *Client) ToolPrefix(server string) (string, bool) {
	if c.Naming.Prefix == nil || server == "" {
		return "", false
	}
	p := c.Naming.Prefix(server)
	return p, p != ""
}

// ToolPrefix is Client.ToolPrefix for the client named client; ok is false
// for an unknown client.
func ToolPrefix(client, server string) (string, bool) {
	c, ok := FindClient(client)
	if !ok {
		return "", false
	}
	return c.ToolPrefix(server)
}

// ToolPrefixes are all prefixes a server's tools may carry under the
// client: the main form first, then any other it uses (plugin forms are
// not prefixes and are matched separately).
func (c *Client) ToolPrefixes(server string) []string {
	p, ok := c.ToolPrefix(server)
	if !ok {
		return nil
	}
	out := []string{p}
	if c.Naming.Also != nil {
		out = append(out, c.Naming.Also(server))
	}
	return out
}

// MatchTool reports whether toolName is a tool of server as the client
// spells it, and returns the tool's own name: for a caller that has the
// tool's name but no event (Claude Code's permission prompt tool).
func (c *Client) MatchTool(toolName, server string) (string, bool) {
	return c.matchTool(toolName, server)
}

// matchTool matches a tool name against server's spelling under the
// client and returns the tool's own name.
func (c *Client) matchTool(toolName, server string) (string, bool) {
	for _, p := range c.ToolPrefixes(server) {
		tool, ok := strings.CutPrefix(toolName, p)
		if ok && c.Naming.HashedIfUnclean && SanitizeName(server) != server {
			tool, ok = cutHash(tool)
		}
		if ok && tool != "" {
			return tool, true
		}
	}
	if c.Naming.PluginForm && server != "" {
		s := SanitizeName(server)
		if rest, ok := strings.CutPrefix(toolName, "mcp__plugin_"); ok {
			if i := strings.Index(rest, "_"+s+"__"); i > 0 {
				if tool := rest[i+len(s)+3:]; tool != "" {
					return tool, true
				}
			}
		}
	}
	return "", false
}

// SanitizeName spells a server name the way Claude Code and OpenCode do
// inside tool names: anything but letters, digits, '_' and '-' becomes '_'.
func SanitizeName(s string) string {
	return sanitize(s, true)
}

// cutHash cuts the "_<8 hex>" off the end of a tool's name; ok is false
// when it has none.
func cutHash(tool string) (string, bool) {
	n := len(tool)
	if n < 10 || tool[n-9] != '_' || !isHex(tool[n-8:]) {
		return "", false
	}
	return tool[:n-9], true
}

// sanitizeTo spells anything but letters, digits, '_' and '-' as with.
func sanitizeTo(s string, with byte) string {
	return sanitizeAs(s, true, with)
}

// sanitizeWord is Codex's spelling: '-' becomes '_' as well.
func sanitizeWord(s string) string {
	return sanitize(s, false)
}

func sanitize(s string, keepDash bool) string {
	return sanitizeAs(s, keepDash, '_')
}

// sanitizeAs spells anything but letters, digits, '_' (and '-' when
// keepDash) as with.
func sanitizeAs(s string, keepDash bool, with byte) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || keepDash && c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = with
		}
	}
	return string(b)
}

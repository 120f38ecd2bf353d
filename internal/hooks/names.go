package hooks

import "strings"

// This file is the one home of how each client spells the tools of an MCP
// server in the tool names its hooks receive. Install's matchers, doctor's
// checks and the hooks' own matching (inject, capture, clear, approve) all
// ask here; a spelling learned from a real client changes in this file only.
// internal/hooks/testdata/names/observed.json records what the real clients
// were seen to send.

// toolNaming is one client's spelling of a server's tools.
type toolNaming struct {
	// prefix is what the client puts before a tool's own name for server.
	prefix func(server string) string
	// alsoPluginForm: Claude Code names a plugin's servers
	// mcp__plugin_<plugin>_<server>__<tool>.
	alsoPluginForm bool
	// hashedIfUnclean: a server whose name holds anything but
	// [A-Za-z0-9_-] has every tool named with "_<8 hex>" at the end (Cline).
	hashedIfUnclean bool
}

var namings = map[string]toolNaming{
	// mcp__<server>__<tool>; anything but [A-Za-z0-9_-] in the server name
	// becomes '_'.
	"claude-code": {prefix: func(s string) string { return "mcp__" + SanitizeName(s) + "__" }, alsoPluginForm: true},
	// Codex 0.169.0 turns '-' into '_' too: a server "workflow-server" has
	// tools mcp__workflow_server__<tool>. Two servers that sanitize alike
	// (wf-server, wf_server) both get "_<12 hex>" after the server part,
	// which names neither: those tools are never matched (never guess).
	"codex": {prefix: func(s string) string { return "mcp__" + sanitizeWord(s) + "__" }},
	// mcp_<server>_<tool> with both verbatim (mcp_wf.v2_probe). The hooks
	// do not parse it: Gemini CLI sends the configured name in
	// mcp_context.server_name; the prefix is for install's matchers.
	"gemini": {prefix: func(s string) string { return "mcp_" + s + "_" }},
	// <server>_<tool>, sanitized as Claude Code does.
	"opencode": {prefix: func(s string) string { return SanitizeName(s) + "_" }},
	// Kilo CLI is OpenCode underneath.
	"kilo": {prefix: func(s string) string { return SanitizeName(s) + "_" }},
	// Documented only: MCP:<server>:<tool> (and mcp__<server>__<tool>).
	"cursor": {prefix: func(s string) string { return "MCP:" + s + ":" }},
	// <server>-<tool>, anything but [A-Za-z0-9_-] in either becoming '-'
	// (Copilot CLI 1.0.102: wf.v2's tools are wf-v2-<tool>; "wf server"'s
	// wf-server-<tool>, which collides with wf-server's).
	"copilot": {prefix: func(s string) string { return sanitizeTo(s, '-') + "-" }},
	// <server>__<tool> (Cline 3.0.65). A whole name with anything but
	// [A-Za-z0-9_-] in the server's name or the tool's becomes its
	// sanitized form plus "_<8 hex>" (wf.v2's probe: wf_v2__probe_770cc911),
	// one longer than 64 characters its sanitized start plus "_<8 hex>"
	// (cline.go refuses those: the tool's name is cut).
	"cline": {prefix: func(s string) string { return SanitizeName(s) + "__" }, hashedIfUnclean: true},
	// <server>___<tool>, three underscores, '.' in the server's name
	// becoming '-' (Droid 0.225.2: wf.v2's tools are wf-v2___<tool>; it did
	// not start a server named "wf server").
	"droid": {prefix: func(s string) string { return sanitizeTo(s, '-') + "___" }},
}

// ToolPrefix is the prefix the client named client gives the tools of
// server in hook payloads, e.g. "mcp__workflow_server__" for Codex and
// "workflow-server". ok is false for an unknown client or empty server.
func ToolPrefix(client, server string) (string, bool) {
	n, ok := namings[client]
	if !ok || server == "" {
		return "", false
	}
	p := n.prefix(server)
	return p, p != ""
}

// ToolPrefixes are all prefixes a server's tools may carry under client:
// the main form first, then any others the client uses (plugin forms are
// not prefixes and are matched separately).
func ToolPrefixes(client, server string) []string {
	p, ok := ToolPrefix(client, server)
	if !ok {
		return nil
	}
	out := []string{p}
	if client == "cursor" {
		out = append(out, "mcp__"+SanitizeName(server)+"__")
	}
	return out
}

// matchToolName matches a tool name against server's spelling under client
// and returns the tool's own name.
func matchToolName(client, toolName, server string) (string, bool) {
	n, ok := namings[client]
	if !ok || server == "" {
		return "", false
	}
	for _, p := range ToolPrefixes(client, server) {
		tool, ok := strings.CutPrefix(toolName, p)
		if ok && n.hashedIfUnclean && SanitizeName(server) != server {
			tool, ok = cutHash(tool)
		}
		if ok && tool != "" {
			return tool, true
		}
	}
	if n.alsoPluginForm {
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
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = with
		}
	}
	return string(b)
}

// sanitizeWord is Codex's spelling: '-' becomes '_' as well.
func sanitizeWord(s string) string {
	return sanitize(s, false)
}

func sanitize(s string, keepDash bool) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || keepDash && c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	return string(b)
}

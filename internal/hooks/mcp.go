package hooks

import (
	"strings"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// This file holds what several clients share: reading an MCP tool result in
// the shapes clients pass it on, and the mcp__server__tool naming scheme.

// mcpResult reads a tool result given as an MCP result object
// ({content, structuredContent, _meta}), a bare content array, or a string
// (Claude Code passes JSON.stringify(structuredContent) as one).
func mcpResult(v gjson.Result) token.Result {
	var r token.Result
	switch {
	case v.Type == gjson.String:
		if s := strings.TrimSpace(v.Str); strings.HasPrefix(s, "{") && gjson.Valid(s) {
			r.Structured = gjson.Parse(s)
		} else {
			r.Texts = []string{v.Str}
		}
	case v.IsArray():
		r.Texts = contentTexts(v)
	case v.IsObject():
		if m := v.Get("_meta"); m.IsObject() {
			r.Meta = m
		}
		switch sc := v.Get("structuredContent"); {
		case sc.IsObject():
			r.Structured = sc
		case sc.Type == gjson.String && gjson.Valid(sc.Str):
			if p := gjson.Parse(sc.Str); p.IsObject() {
				r.Structured = p
			}
		}
		switch c := v.Get("content"); {
		case c.IsArray():
			r.Texts = contentTexts(c)
		case c.Type == gjson.String:
			r.Texts = []string{c.Str}
		}
	}
	return r
}

// contentTexts returns the text of each text block in an MCP content array.
func contentTexts(blocks gjson.Result) []string {
	var texts []string
	blocks.ForEach(func(_, b gjson.Result) bool {
		if t := b.Get("text"); t.Type == gjson.String {
			if typ := b.Get("type"); !typ.Exists() || typ.Str == "text" {
				texts = append(texts, t.Str)
			}
		}
		return true
	})
	return texts
}

// redactContent returns the content array with tok removed from every text
// block, and whether anything changed.
func redactContent(blocks gjson.Result, key, tok string) (string, bool) {
	out := blocks.Raw
	changed := false
	i := -1
	blocks.ForEach(func(_, b gjson.Result) bool {
		i++
		t := b.Get("text")
		if t.Type != gjson.String {
			return true
		}
		if red, ok := token.RedactText(t.Str, key, tok); ok {
			if s, err := setString(out, itoa(i)+".text", red); err == nil {
				out, changed = s, true
			}
		}
		return true
	})
	return out, changed
}

// SanitizeName spells a server name the way Claude Code, Codex and OpenCode
// do inside tool names: anything but letters, digits, '_' and '-' becomes '_'.
func SanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	return string(b)
}

// matchMCPName matches the mcp__<server>__<tool> scheme of Claude Code and
// Codex, and Claude Code's plugin form mcp__plugin_<plugin>_<server>__<tool>.
func matchMCPName(toolName, server string) (string, bool) {
	s := SanitizeName(server)
	if s == "" {
		return "", false
	}
	if tool, ok := strings.CutPrefix(toolName, "mcp__"+s+"__"); ok && tool != "" {
		return tool, true
	}
	if rest, ok := strings.CutPrefix(toolName, "mcp__plugin_"); ok {
		if i := strings.Index(rest, "_"+s+"__"); i > 0 {
			if tool := rest[i+len(s)+3:]; tool != "" {
				return tool, true
			}
		}
	}
	return "", false
}

// redactResult returns an MCP result object with tok removed from its text
// content, structuredContent and _meta, and whether anything changed.
func redactResult(res gjson.Result, key, tok string) (string, bool) {
	out := res.Raw
	changed := false
	if c := res.Get("content"); c.IsArray() {
		if red, ok := redactContent(c, key, tok); ok {
			if s, err := sjson.SetRaw(out, "content", red); err == nil {
				out, changed = s, true
			}
		}
	}
	for _, part := range []string{"structuredContent", "_meta"} {
		if v := res.Get(part); v.IsObject() {
			if red, ok := token.RedactJSON([]byte(v.Raw), key, tok); ok {
				if s, err := sjson.SetRaw(out, part, string(red)); err == nil {
					out, changed = s, true
				}
			}
		}
	}
	return out, changed
}

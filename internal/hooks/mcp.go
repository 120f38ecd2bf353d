package hooks

import (
	"strings"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// This file holds what several clients share: reading an MCP tool result in
// the shapes clients pass it on, and redacting it.

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
// An embedded resource's text (a file's content) and a resource link are
// what the tool passes through, never the server's own words: no value is
// taken from them (docs/tokens.md), so they are not read at all.
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

// redactResult returns an MCP result (object, content array or string) with
// every held token replaced by its stand-in, and whether anything changed.
func redactResult(res gjson.Result, hidden []token.Named) (string, bool) {
	return token.RedactNamed(res.Raw, hidden)
}

package carry

import (
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// ReadResult is the one reader of an MCP tool result, for hook mode (in
// the shapes clients pass it on) and proxy mode (the result object on the
// wire): an MCP result object ({content, structuredContent, _meta}), a bare
// content array, or a string (Claude Code passes
// JSON.stringify(structuredContent) as one).
func ReadResult(v gjson.Result) token.Result {
	return readResult(v, nil, "", false)
}

// ReadResultFor is ReadResult for a result of tool, which specs carry: its
// text blocks are not unescaped when no source that reads tool's results
// may read them (every source finds its value in _meta). A proxy reads
// every result that crosses it; most are large and carry no handle.
func ReadResultFor(v gjson.Result, specs []token.Spec, tool string) token.Result {
	return readResult(v, specs, tool, true)
}

// readResult reads v; with only, the text blocks only when a source of
// specs may read tool's (needsTexts).
func readResult(v gjson.Result, specs []token.Spec, tool string, only bool) token.Result {
	var r token.Result
	switch {
	case v.Type == gjson.String:
		if s := strings.TrimSpace(v.Str); strings.HasPrefix(s, "{") && gjson.Valid(s) {
			r.Structured = gjson.Parse(s)
		} else {
			r.Texts = []string{v.Str}
		}
	case v.IsArray():
		r.Texts = ContentTexts(v)
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
		if only && !needsTexts(specs, tool, r.Meta) {
			return r
		}
		switch c := v.Get("content"); {
		case c.IsArray():
			r.Texts = ContentTexts(c)
		case c.Type == gjson.String:
			r.Texts = []string{c.Str}
		}
	}
	return r
}

// ContentTexts returns the text of each text block in an MCP content
// array: a block whose type is "text", or that has none (Gemini CLI passes
// its hook the model's parts, {"text": ...}, without one; on the wire MCP
// requires a type, and a server's block without one is still its own
// words). An embedded resource's text (a file's content, under
// "resource") and a resource link are what the tool passes through, never
// the server's own words: no value is taken from them (docs/tokens.md), so
// they are not read at all.
func ContentTexts(blocks gjson.Result) []string {
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

// needsTexts reports whether a source may read tool's text blocks: not
// when every source that reads tool finds its value in _meta.
func needsTexts(specs []token.Spec, tool string, meta gjson.Result) bool {
	for i := range specs {
		for _, src := range specs[i].From {
			if len(src.Tools) > 0 && !slices.Contains(src.Tools, tool) {
				continue
			}
			if src.Text != nil || src.Meta == "" || !meta.Get(gjson.Escape(src.Meta)).Exists() {
				if src.Text != nil || src.JSON != "" || src.Line != "" {
					return true
				}
			}
		}
	}
	return false
}

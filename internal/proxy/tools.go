package proxy

import (
	"maps"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// This file rewrites a tools/list result for the handles each tool takes,
// and learns from it which tools take which (their input schemas).

// learnSchemas notes, from a tools/list result, which arguments each
// tool's input schema has (and which are numbers): the tools that take a
// handle whose spec names none. A paginated list adds to what is known.
func (r *Rewriter) learnSchemas(msg []byte) {
	tools := gjson.GetBytes(msg, "result.tools")
	if !tools.IsArray() {
		return
	}
	learned := map[string]map[string]argInfo{}
	tools.ForEach(func(_, tool gjson.Result) bool {
		name := tool.Get("name")
		if name.Type != gjson.String {
			return true
		}
		props := map[string]argInfo{}
		tool.Get("inputSchema.properties").ForEach(func(k, v gjson.Result) bool {
			t := v.Get("type")
			props[k.Str] = argInfo{number: t.Str == "number" || t.Str == "integer"}
			return true
		})
		learned[name.Str] = props
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if gjson.GetBytes(msg, "result.nextCursor").Exists() || r.schemas == nil {
		if r.schemas == nil {
			r.schemas = map[string]map[string]argInfo{}
		}
		maps.Copy(r.schemas, learned)
		return
	}
	r.schemas = learned
}

// rewriteList rewrites each tool's schemas for the handles it takes. A
// rotating handle's argument is removed from the input schema (the model is
// never asked for it), and the key it comes back under from the output
// schema (its structuredContent holds a stand-in). A stable handle, of
// which several values can be live, keeps its argument, made optional and
// described: interceptor fills it in, and a stand-in or a value shown
// earlier names another live one.
func (r *Rewriter) rewriteList(msg []byte) ([]byte, bool) {
	res := gjson.GetBytes(msg, "result")
	tools := res.Get("tools")
	if !tools.IsArray() {
		return nil, false
	}
	// gjson's Index is the offset in msg, also through Get and ForEach.
	var edits []edit
	tools.ForEach(func(_, tool gjson.Result) bool {
		if !tool.IsObject() {
			return true
		}
		name := tool.Get("name").Str
		in, out := tool.Get("inputSchema"), tool.Get("outputSchema")
		inEdit, outEdit := []byte(in.Raw), []byte(out.Raw)
		inChanged, outChanged := false, false
		for i := range r.specs {
			s := &r.specs[i]
			if !s.Takes(name, func(arg string) (bool, bool) { return in.Get("properties." + gjson.Escape(arg)).Exists(), true }) {
				continue
			}
			if in.IsObject() {
				var ed []byte
				var ok bool
				if s.Lifetime == token.Stable {
					ed, ok = optionalProperty(inEdit, s)
				} else {
					ed, ok = dropProperty(string(inEdit), s.Arg)
				}
				if ok {
					inEdit, inChanged = ed, true
				}
			}
			if out.IsObject() && s.Lifetime == token.Rotates && s.StandIns != token.StandInsNone {
				for _, src := range s.From {
					if src.JSON == "" || strings.Contains(src.JSON, ".") && !strings.Contains(src.JSON, `\.`) {
						continue // only top-level keys: a nested path's schema is the server's
					}
					if ed, ok := dropProperty(string(outEdit), unescapeKey(src.JSON)); ok {
						outEdit, outChanged = ed, true
					}
				}
			}
		}
		if inChanged {
			edits = append(edits, edit{off: in.Index, raw: in.Raw, repl: inEdit})
		}
		if outChanged {
			edits = append(edits, edit{off: out.Index, raw: out.Raw, repl: outEdit})
		}
		return true
	})
	return splice(msg, edits)
}

// unescapeKey is a top-level gjson key as it is.
func unescapeKey(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '\\' && i+1 < len(path) {
			i++
		}
		b.WriteByte(path[i])
	}
	return b.String()
}

// standInNote ends the description of a stable handle's argument.
const standInNote = "Filled in by interceptor: leave it out to use the current one. To use another live one, pass a value or a stand-in ([NAME … held by interceptor]) shown in an earlier result."

// optionalProperty makes a stable handle's argument optional in an input
// schema and says in its description that interceptor fills it in.
func optionalProperty(schema []byte, s *token.Spec) ([]byte, bool) {
	path := "properties." + gjson.Escape(s.Arg)
	prop := gjson.GetBytes(schema, path)
	if !prop.IsObject() {
		return nil, false
	}
	out := schema
	changed := false
	if desc := prop.Get("description").Str; !strings.Contains(desc, "Filled in by interceptor") {
		note := strings.Replace(standInNote, "NAME", s.Name, 1)
		if desc != "" {
			note = strings.TrimRight(desc, " ") + " " + note
		}
		if d, err := sjson.SetBytes(out, path+".description", note); err == nil {
			out, changed = d, true
		}
	}
	if d, ok := dropRequired(out, s.Arg); ok {
		out, changed = d, true
	}
	return out, changed
}

// dropProperty removes key from a JSON schema's properties and required.
func dropProperty(schema, key string) ([]byte, bool) {
	out := []byte(schema)
	changed := false
	path := "properties." + gjson.Escape(key)
	if gjson.GetBytes(out, path).Exists() {
		if d, err := sjson.DeleteBytes(out, path); err == nil {
			out, changed = d, true
		}
	}
	if d, ok := dropRequired(out, key); ok {
		out, changed = d, true
	}
	return out, changed
}

// dropRequired removes key from a JSON schema's required list.
func dropRequired(schema []byte, key string) ([]byte, bool) {
	req := gjson.GetBytes(schema, "required")
	if !req.IsArray() {
		return nil, false
	}
	kept := []byte{'['}
	dropped := false
	req.ForEach(func(_, v gjson.Result) bool {
		if v.Type == gjson.String && v.Str == key {
			dropped = true
			return true
		}
		if len(kept) > 1 {
			kept = append(kept, ',')
		}
		kept = append(kept, v.Raw...)
		return true
	})
	if !dropped {
		return nil, false
	}
	d, err := sjson.SetRawBytes(schema, "required", append(kept, ']'))
	return d, err == nil
}

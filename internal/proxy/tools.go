package proxy

import (
	"fmt"
	"maps"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// This file rewrites a tools/list result for the handles each tool takes,
// and learns from it which tools take which (their input schemas).

// learnSchemas notes, from a tools/list result, which arguments each
// tool's input schema has, which are numbers and which are required: the
// tools that take a handle whose spec names none, and the calls that get
// one when they name none (token.Spec.Injects). A paginated list adds to
// what is known.
func (r *Rewriter) learnSchemas(msg []byte) {
	tools := gjson.GetBytes(msg, "result.tools")
	if !tools.IsArray() {
		return
	}
	learned := map[string]map[string]token.SchemaArg{}
	tools.ForEach(func(_, tool gjson.Result) bool {
		name := tool.Get("name")
		if name.Type != gjson.String {
			return true
		}
		props := map[string]token.SchemaArg{}
		in := tool.Get("inputSchema")
		in.Get("properties").ForEach(func(k, v gjson.Result) bool {
			t := v.Get("type")
			props[k.Str] = token.SchemaArg{Has: true, Number: t.Str == "number" || t.Str == "integer", Required: required(in, k.Str)}
			return true
		})
		learned[name.Str] = props
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if gjson.GetBytes(msg, "result.nextCursor").Exists() || r.schemas == nil {
		if r.schemas == nil {
			r.schemas = map[string]map[string]token.SchemaArg{}
		}
		maps.Copy(r.schemas, learned)
		return
	}
	r.schemas = learned
}

// rewriteList rewrites each tool's schemas for the handles it takes. Where
// a call that leaves the argument out gets the value held
// (token.Spec.Injects): a rotating handle's argument is removed from the
// input schema (the model is never asked for it); a stable handle, of
// which several values can be live, keeps its argument, made optional and
// described (fillNote). Where it does not (an optional argument whose
// absence means something), the argument stays as the server has it, with
// a line on stand-ins where the model may read one. A rotating handle's key
// is removed from the output schema (its structuredContent holds a
// stand-in).
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
				switch {
				case s.Inject == token.InjectNever || s.Inject == token.InjectRequired && !required(in, s.Arg):
					ed, ok = describe(inEdit, s.Arg, standInNote(s))
				case s.Lifetime == token.Stable:
					ed, ok = optionalProperty(inEdit, s)
				default:
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

// required reports whether an input schema's required list names arg.
func required(schema gjson.Result, arg string) bool {
	found := false
	schema.Get("required").ForEach(func(_, v gjson.Result) bool {
		found = v.Type == gjson.String && v.Str == arg
		return !found
	})
	return found
}

// fillNote ends the description of a stable handle's argument, which a
// call may leave out. It says only what holds from the first tools/list
// on: nothing is held before a starts tool returns a value, and a stand-in
// is named only where the model may read one.
func fillNote(s *token.Spec) string {
	note := fmt.Sprintf("Interceptor fills this in when it is left out, with the %s that %s returned (once one has).", s.Name, strings.Join(s.Starts, " or "))
	if s.ShowsStandIns() {
		return note + " To use another, pass it as an earlier result shows it: a value, or a stand-in [" + s.Name + " … held by interceptor]."
	}
	return note + " To use another, pass its value."
}

// standInNote ends the description of a handle's argument that
// interceptor does not fill in, where the model may read a value as a
// stand-in ("": it never does).
func standInNote(s *token.Spec) string {
	if !s.ShowsStandIns() {
		return ""
	}
	return "A stand-in [" + s.Name + " … held by interceptor] shown in an earlier result may be passed here: interceptor replaces it with its value."
}

// optionalProperty makes a stable handle's argument optional in an input
// schema and says in its description that interceptor fills it in.
func optionalProperty(schema []byte, s *token.Spec) ([]byte, bool) {
	out, changed := schema, false
	if d, ok := describe(out, s.Arg, fillNote(s)); ok {
		out, changed = d, true
	}
	if d, ok := dropRequired(out, s.Arg); ok {
		out, changed = d, true
	}
	return out, changed
}

// describe ends the description of arg's property with note, joined as a
// sentence of its own ("" or a description that has it: unchanged).
func describe(schema []byte, arg, note string) ([]byte, bool) {
	path := "properties." + gjson.Escape(arg)
	prop := gjson.GetBytes(schema, path)
	desc := prop.Get("description").Str
	if note == "" || !prop.IsObject() || strings.Contains(desc, note) {
		return nil, false
	}
	d, err := sjson.SetBytes(schema, path+".description", joinSentences(desc, note))
	return d, err == nil
}

// joinSentences appends the sentence note to a server's description,
// ending the description as a sentence first ("Process ID" → "Process
// ID. …"; "Page id:" → "Page id. …").
func joinSentences(desc, note string) string {
	desc = strings.TrimRight(desc, " \t\r\n")
	if desc == "" {
		return note
	}
	if trimmed := strings.TrimRight(desc, ",;:-"); trimmed != "" {
		desc = trimmed
	}
	switch desc[len(desc)-1] {
	case '.', '!', '?':
	default:
		desc += "."
	}
	return desc + " " + note
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

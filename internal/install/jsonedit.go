package install

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tailscale/hujson"
	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
)

// The config editor works on hujson's syntax tree, which holds every byte of
// the file (comments, spacing, key order, number spelling, escapes) and packs
// back to the same bytes. Insertions copy the container's own layout (one
// member per line with its indentation, or one line when the container is on
// one line), and a removal takes out exactly the text an insertion at the
// same place adds, so install followed by uninstall gives back the original
// bytes. A comment that ends the line before an insertion stays with the
// value it followed.

// editor holds a config being edited.
type editor struct {
	root   hujson.Value
	layout layout
}

// parseConfig reads a config the client's own parser would accept, naming
// the file and the client in a one-line refusal otherwise.
func parseConfig(path string, doc []byte, c *hooks.Client) (*editor, error) {
	v, err := parseJSONC(doc)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v); fix it (or move it away) and run again", path, err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("%s: the top level is not a JSON object", path)
	}
	comments, trailing := extras(&v)
	does := "does not accept"
	if c.Syntax.Unverified {
		does = "is not known to accept"
	}
	if c.Syntax.Rejected != "" {
		does += " (" + c.Syntax.Rejected + ")"
	}
	switch {
	case comments && !c.Syntax.Comments:
		return nil, fmt.Errorf("%s has comments, which %s %s: remove them (or add the hooks by hand) and run again", path, c.Display, does)
	case trailing && !c.Syntax.TrailingCommas:
		return nil, fmt.Errorf("%s has a trailing comma, which %s %s: remove it and run again", path, c.Display, does)
	}
	e := &editor{root: v, layout: detectLayout(doc)}
	if c.Syntax.RefusesDuplicates {
		if where, key, ok := e.duplicateHooksKey(); ok {
			return nil, fmt.Errorf("%s repeats the key %s in %s, which %s does not accept (%s): remove one and run again", path, jsonString(key), where, c.Display, c.Syntax.Rejected)
		}
	}
	return e, nil
}

// Duplicate keys. JSON.parse keeps the last member of a name and never reads
// the ones before it (shadowed); Codex refuses the file
// (hooks.Syntax.RefusesDuplicates). Every read here follows the client:
// list.find and eachHook see only the last member, plain and standardJSON
// drop the shadowed ones before gjson (which would take the first) reads
// them, and install edits only what the client reads.

// shadowed reports whether member i of object l has a later member of the
// same name.
func (l list) shadowed(i int) bool {
	j, _ := l.find(l.key(i))
	return j != i
}

// dropShadowed removes every shadowed member from v, at every depth.
func dropShadowed(v *hujson.Value) {
	switch c := v.Value.(type) {
	case *hujson.Object:
		seen := make(map[string]bool, len(c.Members))
		keep := make([]hujson.ObjectMember, 0, len(c.Members))
		for i := len(c.Members) - 1; i >= 0; i-- {
			name := c.Members[i].Name.Value.(hujson.Literal).String()
			if seen[name] {
				continue
			}
			seen[name] = true
			dropShadowed(&c.Members[i].Value)
			keep = append(keep, c.Members[i])
		}
		slices.Reverse(keep)
		c.Members = keep
	case *hujson.Array:
		for i := range c.Elements {
			dropShadowed(&c.Elements[i])
		}
	}
}

// duplicateHooksKey finds a key repeated in one object: the top level's
// "hooks", or any object inside the hooks; where names the object.
func (e *editor) duplicateHooksKey() (where, key string, found bool) {
	top := e.top()
	seen := 0
	for i := range top.len() {
		if top.key(i) == "hooks" {
			seen++
		}
	}
	if seen > 1 {
		return "the top level", "hooks", true
	}
	i, ok := top.find("hooks")
	if !ok {
		return "", "", false
	}
	var walk func(v *hujson.Value, at string) bool
	walk = func(v *hujson.Value, at string) bool {
		switch c := v.Value.(type) {
		case *hujson.Object:
			names := make(map[string]bool, len(c.Members))
			for _, m := range c.Members {
				name := m.Name.Value.(hujson.Literal).String()
				if names[name] {
					where, key = at, name
					return true
				}
				names[name] = true
			}
			for _, m := range c.Members {
				if walk(&m.Value, at+"."+m.Name.Value.(hujson.Literal).String()) {
					return true
				}
			}
		case *hujson.Array:
			for j := range c.Elements {
				if walk(&c.Elements[j], fmt.Sprintf("%s[%d]", at, j)) {
					return true
				}
			}
		}
		return false
	}
	found = walk(top.value(i), "hooks")
	return where, key, found
}

// extras reports whether v holds comments and trailing commas.
func extras(v *hujson.Value) (comments, trailing bool) {
	for x := range v.All() {
		comments = comments || hasComment(x.BeforeExtra) || hasComment(x.AfterExtra)
		switch c := x.Value.(type) {
		case *hujson.Object:
			comments = comments || hasComment(c.AfterExtra)
			trailing = trailing || len(c.Members) > 0 && c.Members[len(c.Members)-1].Value.AfterExtra != nil
		case *hujson.Array:
			comments = comments || hasComment(c.AfterExtra)
			trailing = trailing || len(c.Elements) > 0 && c.Elements[len(c.Elements)-1].AfterExtra != nil
		}
	}
	return comments, trailing
}

// hasComment: an Extra holds only whitespace and comments.
func hasComment(x []byte) bool { return bytes.IndexByte(x, '/') >= 0 }

func (e *editor) bytes() []byte { return e.root.Pack() }

// parseJSONC parses a config as HuJSON (JSON with comments and trailing
// commas). hujson recurses once per level, and a file nested millions of
// levels deep would overflow the stack and kill the process (recover cannot
// catch that): nesting past rawjson.MaxDepth, which no client config comes
// near, is refused before it parses. Byte-order marks that start the file
// (Windows editors write one; Cursor reads such files) are not JSON: they
// are set aside and packed back in front, so an edit keeps them.
func parseJSONC(doc []byte) (hujson.Value, error) {
	if rawjson.DepthExceedsJSONC(doc, rawjson.MaxDepth) {
		return hujson.Value{}, fmt.Errorf("nested deeper than %d levels", rawjson.MaxDepth)
	}
	body := hooks.TrimBOM(doc)
	v, err := hujson.Parse(body)
	if err == nil && len(body) < len(doc) {
		v.BeforeExtra = append(bytes.Clone(doc[:len(doc)-len(body)]), v.BeforeExtra...)
	}
	return v, err
}

// plainJSON is doc as plain JSON (comments and trailing commas dropped,
// shadowed duplicates too), for reading it with gjson.
func plainJSON(doc []byte) ([]byte, error) {
	v, err := parseJSONC(bytes.Clone(doc))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON (%v)", err)
	}
	v.Standardize()
	dropShadowed(&v)
	return hooks.TrimBOM(v.Pack()), nil
}

// standardJSON is plainJSON, nil when doc is not HuJSON.
func standardJSON(doc []byte) []byte {
	plain, _ := plainJSON(doc)
	return plain
}

// list is an object or array being edited, with the indentation of the line
// it opens on.
type list struct {
	obj    *hujson.Object
	arr    *hujson.Array
	indent string
}

func (l list) len() int {
	if l.obj != nil {
		return len(l.obj.Members)
	}
	return len(l.arr.Elements)
}

// value is item i's value.
func (l list) value(i int) *hujson.Value {
	if l.obj != nil {
		return &l.obj.Members[i].Value
	}
	return &l.arr.Elements[i]
}

// lead is what comes before item i: after the opening bracket or the comma.
func (l list) lead(i int) *hujson.Extra {
	if l.obj != nil {
		return &l.obj.Members[i].Name.BeforeExtra
	}
	return &l.arr.Elements[i].BeforeExtra
}

// tail is what comes before the closing bracket: after the last value, or
// after its trailing comma.
func (l list) tail() *hujson.Extra {
	if l.obj != nil {
		return &l.obj.AfterExtra
	}
	return &l.arr.AfterExtra
}

func (l list) key(i int) string {
	return l.obj.Members[i].Name.Value.(hujson.Literal).String()
}

// find is the member named key; the last duplicate wins, as in the clients'
// JSON parsers.
func (l list) find(key string) (int, bool) {
	if l.obj == nil {
		return -1, false
	}
	for i := len(l.obj.Members) - 1; i >= 0; i-- {
		if l.key(i) == key {
			return i, true
		}
	}
	return -1, false
}

// child is item i as a list when it is an object (open '{') or array ('[').
func (l list) child(i int, open byte) (list, bool) {
	indent := l.indent
	if lead := *l.lead(i); bytes.IndexByte(lead, '\n') >= 0 {
		indent = lineIndent(lead)
	}
	switch c := l.value(i).Value.(type) {
	case *hujson.Object:
		return list{obj: c, indent: indent}, open == '{'
	case *hujson.Array:
		return list{arr: c, indent: indent}, open == '['
	}
	return list{}, false
}

func (e *editor) top() list { return list{obj: e.root.Value.(*hujson.Object)} }

// layout describes how a document is formatted: its indentation unit, and
// whether it is written on one line (minified).
type layout struct {
	unit    string
	oneLine bool
}

func detectLayout(b []byte) layout {
	l := layout{unit: "  "}
	trimmed := bytes.TrimSpace(b)
	if !bytes.Contains(trimmed, []byte("\n")) && !bytes.Equal(trimmed, []byte("{}")) {
		l.oneLine = true
	}
	// The first indented line that starts a member gives the unit.
	for _, line := range bytes.Split(b, []byte("\n")) {
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n > 0 && n < len(line) && (line[n] == '"' || line[n] == '{' || line[n] == '[') {
			l.unit = string(line[:n])
			break
		}
	}
	return l
}

// lineIndent is the whitespace that starts the last line of x.
func lineIndent(x []byte) string {
	last := x[bytes.LastIndexByte(x, '\n')+1:]
	n := 0
	for n < len(last) && (last[n] == ' ' || last[n] == '\t') {
		n++
	}
	return string(last[:n])
}

// splitLine splits a lead at the newline that ends the previous value's
// line: same is a comment on that line (it belongs to the value before),
// rest the lines after. A lead with no comment before its first newline is
// all rest. hujson keeps the whitespace and comments between two tokens as
// one raw Extra and has no call that walks the comments in it, so this scans
// it; an Extra holds only whitespace, // comments (to the newline) and /* */
// comments, so finding where each comment ends is all it takes.
func splitLine(x []byte) (same, rest []byte) {
	for i := 0; i < len(x); i++ {
		switch {
		case x[i] == '\n':
			if hasComment(x[:i]) {
				return x[:i], x[i:]
			}
			return nil, x
		case bytes.HasPrefix(x[i:], []byte("//")):
			if j := bytes.IndexByte(x[i:], '\n'); j >= 0 {
				return x[:i+j], x[i+j:]
			}
			return nil, x
		case bytes.HasPrefix(x[i:], []byte("/*")):
			j := bytes.Index(x[i+2:], []byte("*/"))
			if j < 0 {
				return nil, x
			}
			i += j + 3
		}
	}
	return nil, x
}

func cat(parts ...[]byte) hujson.Extra {
	return hujson.Extra(bytes.Join(parts, nil))
}

// multiLine reports whether l has (or, empty, would get) one item per line.
func (e *editor) multiLine(l list) bool {
	if e.layout.oneLine {
		return false
	}
	return l.len() == 0 || bytes.IndexByte(*l.lead(0), '\n') >= 0
}

// sep is the space after a comma in a one-line list.
func sep(l list) []byte {
	if l.len() > 1 && !hasComment(*l.lead(1)) {
		return bytes.Clone(*l.lead(1))
	}
	return nil
}

// newValue is raw laid out for a line indented by indent (or compact):
// one member or element per line, indented by the document's unit, as
// tidwall/pretty writes it with no width for one-line arrays.
func (e *editor) newValue(raw, indent string, multi bool) hujson.Value {
	text := []byte(raw)
	if multi {
		text = pretty.PrettyOptions(text, &pretty.Options{Prefix: indent, Indent: e.layout.unit})
		text = bytes.TrimSuffix(bytes.TrimPrefix(text, []byte(indent)), []byte("\n"))
	}
	v, err := hujson.Parse(text)
	if err != nil {
		panic("install: built invalid JSON: " + raw) // raw is built by this package
	}
	return v
}

// put places v as item i of l with lead before it.
func (l list) put(i int, key string, lead hujson.Extra, v hujson.Value, keySep []byte) {
	if l.obj != nil {
		v.BeforeExtra = keySep
		m := hujson.ObjectMember{Name: hujson.Value{BeforeExtra: lead, Value: hujson.Literal(jsonString(key))}, Value: v}
		l.obj.Members = append(l.obj.Members[:i], append([]hujson.ObjectMember{m}, l.obj.Members[i:]...)...)
		return
	}
	v.BeforeExtra = lead
	l.arr.Elements = append(l.arr.Elements[:i], append([]hujson.Value{v}, l.arr.Elements[i:]...)...)
}

// keySep is the space between a member's colon and its value.
func (e *editor) keySep(l list, multi bool) []byte {
	if l.obj != nil && len(l.obj.Members) > 0 && !hasComment(l.obj.Members[0].Value.BeforeExtra) {
		return bytes.Clone(l.obj.Members[0].Value.BeforeExtra)
	}
	if multi {
		return []byte(" ")
	}
	return nil
}

// insert adds an element (key == "" in an array) or member at the end of l.
// A list written on one line gets the entry on that line, compact; any other
// gets it on its own line, laid out like the rest of the document.
func (e *editor) insert(l list, key, raw string) {
	multi := e.multiLine(l)
	n := l.len()
	tail := l.tail()
	if n == 0 {
		if !multi {
			l.put(0, key, cat(*tail), e.newValue(raw, "", false), e.keySep(l, false))
			*tail = nil
			return
		}
		inner := l.indent + e.layout.unit
		lead := cat([]byte("\n"), []byte(inner))
		if hasComment(*tail) {
			// Keep the comments in front of the new entry.
			t := bytes.TrimRight(*tail, " \t")
			if !bytes.HasSuffix(t, []byte("\n")) {
				t = cat(t, []byte("\n"))
			}
			lead = cat(t, []byte(inner))
		}
		l.put(0, key, lead, e.newValue(raw, inner, true), e.keySep(l, true))
		*tail = cat([]byte("\n"), []byte(l.indent))
		return
	}
	trailing := l.value(n-1).AfterExtra != nil
	var lead hujson.Extra
	indent := ""
	if multi {
		indent = lineIndent(*l.lead(0))
		same, rest := splitLine(*tail)
		lead = cat(same, []byte("\n"), []byte(indent))
		*tail = cat(rest)
	} else {
		lead = cat(sep(l))
	}
	v := e.newValue(raw, indent, multi)
	if trailing {
		v.AfterExtra = hujson.Extra{}
	}
	l.put(n, key, lead, v, e.keySep(l, multi))
}

// insertBefore adds an element in front of element i of array l, laid out
// like insert; remove(l, i) takes out exactly what it adds.
func (e *editor) insertBefore(l list, i int, raw string) {
	multi := e.multiLine(l)
	lead := cat(*l.lead(i))
	indent := ""
	if multi {
		indent = lineIndent(lead)
		*l.lead(i) = cat([]byte("\n"), []byte(indent))
	} else {
		*l.lead(i) = cat(sep(l))
	}
	l.put(i, "", lead, e.newValue(raw, indent, multi), nil)
}

// remove deletes item i of l, with the separator that an insert at the same
// place adds. A comment ending the line before it stays.
func (e *editor) remove(l list, i int) {
	n := l.len()
	lead := *l.lead(i)
	same, rest := splitLine(lead)
	removedTrailing := l.value(i).AfterExtra != nil && i == n-1
	switch {
	case n == 1:
		tail := *l.tail()
		if !hasComment(lead) {
			*l.tail() = nil
		} else {
			*l.tail() = cat(bytes.TrimRight(lead, " \t"), []byte(lineIndent(tail)))
		}
	case i == n-1:
		_, tailRest := splitLine(*l.tail())
		prev := l.value(i - 1)
		var keep []byte
		if !removedTrailing && prev.AfterExtra != nil {
			// What stood between the new last value and its comma now ends
			// the list, without the comma.
			keep = prev.AfterExtra
			prev.AfterExtra = nil
		}
		*l.tail() = cat(keep, same, tailRest)
	default:
		nextSame, nextRest := splitLine(*l.lead(i + 1))
		_ = nextSame // a comment after the removed value goes with it
		if !hasComment(nextRest) {
			nextRest = rest
		}
		*l.lead(i + 1) = cat(same, nextRest)
	}
	if l.obj != nil {
		l.obj.Members = append(l.obj.Members[:i], l.obj.Members[i+1:]...)
	} else {
		l.arr.Elements = append(l.arr.Elements[:i], l.arr.Elements[i+1:]...)
	}
	if removedTrailing && n > 1 && l.value(n-2).AfterExtra == nil {
		l.value(n - 2).AfterExtra = hujson.Extra{}
	}
}

// replace swaps the value v for raw (a scalar, written as is).
func replace(v *hujson.Value, raw string) {
	v.Value = hujson.Literal(raw)
}

// stringValue is v's string, ok false when it is not a JSON string.
func stringValue(v *hujson.Value) (string, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}

// plain is v as compact plain JSON, for reading with gjson.
func plain(v *hujson.Value) gjson.Result {
	c := v.Clone()
	c.Minimize()
	dropShadowed(&c)
	return gjson.ParseBytes(c.Pack())
}

// jsonString encodes s as a JSON string the way JSON.stringify and
// serde_json do.
func jsonString(s string) string { return string(rawjson.AppendString(nil, s)) }

// obj builds a compact JSON object from ordered key/raw-value pairs.
func obj(kv ...string) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(jsonString(kv[i]) + ":" + kv[i+1])
	}
	sb.WriteByte('}')
	return sb.String()
}

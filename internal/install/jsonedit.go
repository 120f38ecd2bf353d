package install

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// A surgical JSON editor: values are located by scanning the original bytes
// and changed by splicing, so every byte outside the edit stays as it was
// (key order, spacing, number spelling, escapes). Insertions copy the
// container's own layout (one member per line with its indentation, or one
// line when the container is on one line), and a removal takes out exactly
// the text an insertion at the same place adds, so install followed by
// uninstall gives back the original bytes.

// span is a value's byte range [start, end) in the document.
type span struct{ start, end int }

// member is an object member (key != "" or an array element (key == "").
type member struct {
	keyStart int // start of the key's opening quote; == val.start for elements
	key      string
	val      span
}

// container is an object or array with its members.
type container struct {
	span    // from the opening to just past the closing bracket
	object  bool
	members []member
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value starting at i. The document is
// known to be valid JSON (checked before any edit).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) && !bytes.ContainsRune([]byte(",]} \t\r\n"), rune(b[j])) {
			j++
		}
		return j
	}
}

func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// parseContainer reads the object or array whose opening bracket is at i.
func parseContainer(b []byte, i int) (container, error) {
	if i >= len(b) || (b[i] != '{' && b[i] != '[') {
		return container{}, errors.New("not an object or array")
	}
	c := container{object: b[i] == '{'}
	c.start = i
	j := skipWS(b, i+1)
	if j < len(b) && (b[j] == '}' || b[j] == ']') {
		c.end = j + 1
		return c, nil
	}
	for j < len(b) {
		m := member{keyStart: j}
		if c.object {
			kend := skipString(b, j)
			key, err := strconv.Unquote(string(b[j:kend]))
			if err != nil {
				key = gjson.ParseBytes(b[j:kend]).Str
			}
			m.key = key
			j = skipWS(b, kend)
			j = skipWS(b, j+1) // the colon
		}
		m.val = span{j, skipValue(b, j)}
		c.members = append(c.members, m)
		j = skipWS(b, m.val.end)
		if j < len(b) && b[j] == ',' {
			j = skipWS(b, j+1)
			continue
		}
		c.end = j + 1
		return c, nil
	}
	return container{}, errors.New("unterminated container")
}

func (c container) find(key string) (member, int, bool) {
	// The last duplicate wins, as in the clients' JSON parsers.
	for i := len(c.members) - 1; i >= 0; i-- {
		if c.members[i].key == key {
			return c.members[i], i, true
		}
	}
	return member{}, -1, false
}

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

// lineIndent is the leading whitespace of the line holding position i.
func lineIndent(b []byte, i int) string {
	start := bytes.LastIndexByte(b[:i], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return string(b[start:end])
}

// startsLine reports whether only whitespace precedes position i on its line.
func startsLine(b []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch b[j] {
		case ' ', '\t', '\r':
			continue
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// editor holds a document being edited.
type editor struct {
	doc    []byte
	layout layout
}

func newEditor(doc []byte) *editor {
	return &editor{doc: doc, layout: detectLayout(doc)}
}

func (e *editor) splice(start, end int, text string) {
	out := make([]byte, 0, len(e.doc)-(end-start)+len(text))
	out = append(out, e.doc[:start]...)
	out = append(out, text...)
	out = append(out, e.doc[end:]...)
	e.doc = out
}

// root returns the top-level object.
func (e *editor) root() (container, error) {
	i := skipWS(e.doc, 0)
	if i >= len(e.doc) || e.doc[i] != '{' {
		return container{}, errors.New("the top level is not a JSON object")
	}
	return parseContainer(e.doc, i)
}

// at returns the container at the value span v.
func (e *editor) at(v span) (container, error) {
	return parseContainer(e.doc, v.start)
}

// child parses the value v as a container if it opens with open ('{' or
// '['); ok is false for any other kind of value.
func (e *editor) child(v span, open byte) (c container, ok bool) {
	if e.doc[v.start] != open {
		return container{}, false
	}
	c, err := e.at(v)
	return c, err == nil
}

func writePretty(sb *strings.Builder, v gjson.Result, indent, unit string) {
	switch {
	case v.IsObject() || v.IsArray():
		open, close := "[", "]"
		if v.IsObject() {
			open, close = "{", "}"
		}
		n := 0
		v.ForEach(func(k, val gjson.Result) bool {
			if n == 0 {
				sb.WriteString(open)
			} else {
				sb.WriteString(",")
			}
			sb.WriteString("\n" + indent + unit)
			if v.IsObject() {
				sb.WriteString(k.Raw + ": ")
			}
			writePretty(sb, val, indent+unit, unit)
			n++
			return true
		})
		if n == 0 {
			sb.WriteString(open + close)
			return
		}
		sb.WriteString("\n" + indent + close)
	default:
		sb.WriteString(v.Raw)
	}
}

// insert adds an element (key == "") or member at the end of container c.
// A container written on one line gets the entry on that line, compact; any
// other gets it on its own line, laid out like the rest of the document.
func (e *editor) insert(c container, key, raw string) {
	inline := e.layout.oneLine || len(c.members) > 0 && !startsLine(e.doc, c.members[0].keyStart)
	entry := func(indent string) string {
		v := raw
		if !inline {
			var sb strings.Builder
			writePretty(&sb, gjson.Parse(raw), indent, e.layout.unit)
			v = sb.String()
		}
		if !c.object {
			return v
		}
		if inline && !bytes.Contains(e.doc[c.start:c.end], []byte(`": `)) {
			return jsonString(key) + ":" + v
		}
		return jsonString(key) + ": " + v
	}
	switch {
	case len(c.members) == 0 && inline:
		e.splice(c.start+1, c.end-1, entry(""))
	case len(c.members) == 0:
		outer := lineIndent(e.doc, c.start)
		inner := outer + e.layout.unit
		e.splice(c.start+1, c.end-1, "\n"+inner+entry(inner)+"\n"+outer)
	case inline:
		sep := ","
		if bytes.Contains(e.doc[c.start:c.end], []byte(", ")) {
			sep = ", "
		}
		last := c.members[len(c.members)-1]
		e.splice(last.val.end, last.val.end, sep+entry(""))
	default:
		indent := lineIndent(e.doc, c.members[0].keyStart)
		last := c.members[len(c.members)-1]
		e.splice(last.val.end, last.val.end, ",\n"+indent+entry(indent))
	}
}

// insertBefore adds an element in front of element i of array c, laid out
// like insert; remove(c, i) takes out exactly what it adds.
func (e *editor) insertBefore(c container, i int, raw string) {
	inline := e.layout.oneLine || !startsLine(e.doc, c.members[0].keyStart)
	at := c.members[i].keyStart
	if inline {
		sep := ","
		if bytes.Contains(e.doc[c.start:c.end], []byte(", ")) {
			sep = ", "
		}
		e.splice(at, at, raw+sep)
		return
	}
	indent := lineIndent(e.doc, at)
	var sb strings.Builder
	writePretty(&sb, gjson.Parse(raw), indent, e.layout.unit)
	e.splice(at, at, sb.String()+",\n"+indent)
}

// remove deletes member i of container c, with the separator that an
// insert at the same place adds.
func (e *editor) remove(c container, i int) {
	m := c.members[i]
	switch {
	case len(c.members) == 1:
		e.splice(c.start+1, c.end-1, "")
	case i > 0:
		e.splice(c.members[i-1].val.end, m.val.end, "")
	default:
		e.splice(m.keyStart, c.members[1].keyStart, "")
	}
}

// replace swaps the value at v for raw (a scalar, written as is).
func (e *editor) replace(v span, raw string) {
	e.splice(v.start, v.end, raw)
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

// checkJSON refuses what the editor cannot edit safely, naming the file.
func checkJSON(path string, doc []byte) error {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil
	}
	if !gjson.ValidBytes(doc) {
		if hasComments(doc) {
			return fmt.Errorf("%s has comments (JSONC); interceptor edits only plain JSON: remove the comments or add the hooks by hand (see the recipe)", path)
		}
		return fmt.Errorf("%s is not valid JSON; fix it (or move it away) and run again", path)
	}
	if !gjson.ParseBytes(doc).IsObject() {
		return fmt.Errorf("%s: the top level is not a JSON object", path)
	}
	return nil
}

// hasComments reports a // or /* outside strings.
func hasComments(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = skipString(b, i) - 1
		case '/':
			if i+1 < len(b) && (b[i+1] == '/' || b[i+1] == '*') {
				return true
			}
		}
	}
	return false
}

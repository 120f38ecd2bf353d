package hooks

import (
	"strconv"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/sjson"
)

// Replies are built by appending raw JSON, so the tool arguments and results
// we pass back keep every untouched byte and are copied once.

// rawJSON marks a reply value that is already JSON.
type rawJSON []byte

// field is one member of a reply: a dotted path and a value that is a
// string or rawJSON. Fields sharing a path prefix must be adjacent.
type field struct {
	path  string
	value any
}

// reply builds a JSON object from fields, in order.
func reply(fields ...field) ([]byte, error) {
	size := 64 + 1 // and the newline the hook ends its reply with
	for _, f := range fields {
		if r, ok := f.value.(rawJSON); ok {
			size += len(r)
		}
	}
	return appendObject(make([]byte, 0, size), fields, 0), nil
}

func appendObject(b []byte, fields []field, depth int) []byte {
	b = append(b, '{')
	for i := 0; i < len(fields); {
		head, nested := segment(fields[i].path, depth)
		j := i + 1
		for j < len(fields) {
			if h, _ := segment(fields[j].path, depth); h != head {
				break
			}
			j++
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, head)
		b = append(b, ':')
		switch v := fields[i].value; {
		case nested:
			b = appendObject(b, fields[i:j], depth+1)
		case isRaw(v):
			b = append(b, v.(rawJSON)...)
		default:
			b = rawjson.AppendString(b, v.(string))
		}
		i = j
	}
	return append(b, '}')
}

func isRaw(v any) bool {
	_, ok := v.(rawJSON)
	return ok
}

// segment returns the depth-th element of a dotted path and whether more
// elements follow.
func segment(path string, depth int) (string, bool) {
	for ; depth > 0; depth-- {
		_, path, _ = strings.Cut(path, ".")
	}
	head, _, nested := strings.Cut(path, ".")
	return head, nested
}

func itoa(i int) string { return strconv.Itoa(i) }

func setString(json, path, value string) (string, error) {
	return sjson.Set(json, path, value)
}

// textBlock renders an MCP text content block.
func textBlock(text string) (string, error) {
	return sjson.Set(`{"type":"text"}`, "text", text)
}

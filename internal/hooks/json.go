package hooks

import (
	"strconv"

	"github.com/tidwall/sjson"
)

// Replies are built with sjson on raw JSON, so the tool arguments and results
// we pass back keep every untouched byte.

// rawJSON marks a reply value that is already JSON.
type rawJSON string

// field is one path and value of a reply; value is a string or rawJSON.
type field struct {
	path  string
	value any
}

// reply builds a JSON object from fields, in order.
func reply(fields ...field) ([]byte, error) {
	out := []byte("{}")
	var err error
	for _, f := range fields {
		if r, ok := f.value.(rawJSON); ok {
			out, err = sjson.SetRawBytes(out, f.path, []byte(r))
		} else {
			out, err = sjson.SetBytes(out, f.path, f.value)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func itoa(i int) string { return strconv.Itoa(i) }

func setString(json, path, value string) (string, error) {
	return sjson.Set(json, path, value)
}

// textBlock renders an MCP text content block.
func textBlock(text string) (string, error) {
	return sjson.Set(`{"type":"text"}`, "text", text)
}

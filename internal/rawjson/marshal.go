package rawjson

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as encoding/json does, on one line, but keeps <, > and
// & as they are: the records and results it makes (approval and child
// records, chat events, the MCP servers' results) are read by people too,
// and every JSON reader takes either form.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

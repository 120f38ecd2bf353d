package token

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The handles files in examples/ follow docs/handles.schema.json and the
// parser takes them; files the parser refuses for their shape, the schema
// refuses too. The schema is what editors check as a user types.
func TestHandlesSchema(t *testing.T) {
	raw, err := os.ReadFile("../../docs/handles.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("docs/handles.schema.json: %v", err)
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving the schema: %v", err)
	}
	validate := func(doc []byte) error {
		var v any
		if err := json.Unmarshal(doc, &v); err != nil {
			return err
		}
		return rs.Validate(v)
	}
	examples, _ := filepath.Glob("../../examples/servers/*/handles.json")
	if len(examples) < 2 {
		t.Fatalf("found %d example handles files", len(examples))
	}
	for _, f := range examples {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(doc); err != nil {
			t.Errorf("%s does not follow the schema: %v", f, err)
		}
		if _, err := ParseHandles(doc, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Keys no example uses: the schema and the parser both take them.
	for _, good := range []string{
		`{"handles":[{"name":"i","from":{"meta":"i"},"repair":true}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"repair":false}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"inject":"always"}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"inject":"required"}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"inject":"never"}]}`,
	} {
		if err := validate([]byte(good)); err != nil {
			t.Errorf("the schema refuses %s: %v", good, err)
		}
		if _, err := ParseHandles([]byte(good), "good.json"); err != nil {
			t.Errorf("the parser refuses %s: %v", good, err)
		}
	}
	for _, bad := range []string{
		`{"handles":[]}`,
		`{"handles":[{"name":"pid","frm":[]}]}`,
		`{"handles":[{"name":"pid","type":"int","from":{"meta":"pid"}}]}`,
		`{"handles":[{"name":"i","lifetime":"stable","from":{"meta":"i"}}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i","text":"(x)"}}]}`,
		`{"handles":[{"name":"i","from":{"tools":["a"]}}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"to":{}}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"min_length":0}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"repair":"yes"}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"inject":"optional"}]}`,
		`{"handles":[{"name":"i","from":{"meta":"i"},"inject":true}]}`,
	} {
		if validate([]byte(bad)) == nil {
			t.Errorf("the schema takes %s", bad)
		}
		if _, err := ParseHandles([]byte(bad), "bad.json"); err == nil {
			t.Errorf("the parser takes %s", bad)
		}
	}
}

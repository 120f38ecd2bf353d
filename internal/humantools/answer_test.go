package humantools

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// A declaration's answerSchema is checked when the file is read; a bad
// one is refused naming the file, the tool and the keyword.
func TestAnswerSchemaDeclared(t *testing.T) {
	decl := func(s string) string {
		return `[{"name":"pick","description":"pick an env","mode":"hold","answerSchema":` + s + `}]`
	}
	tools, err := Parse([]byte(decl(`{"type":"string","enum":["staging","prod"]}`)), "tools.json")
	if err != nil || len(tools) != 1 || gjson.Get(tools[0].AnswerSchema, "enum.1").Str != "prod" {
		t.Fatalf("a good answerSchema: %+v %v", tools, err)
	}
	for s, want := range map[string]string{
		`{"type":"string","enum":[]}`:       "enum: want a non-empty array",
		`{"type":"integer","enum":[1,2.5]}`: "enum: 2.5 is not a integer",
		`{"type":"string","minimum":1}`:     "minimum",
		`{"enum":["a"]}`:                    "type missing",
		`"string"`:                          "want a JSON Schema object",
		`{"type":"number","maxLength":3}`:   "maxLength",
		`{"type":"string","minLength":-1}`:  "minLength",
	} {
		_, err := Parse([]byte(decl(s)), "tools.json")
		if err == nil || !strings.Contains(err.Error(), "tools.json: tool 1 (pick): answerSchema: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("answerSchema %s: %v, want %q", s, err, want)
		}
	}
}

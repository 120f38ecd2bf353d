package humantools

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// An answer is checked against its schema: the type, the enum, the
// bounds; each refusal is one line that says what the answer must be.
func TestCheckAnswer(t *testing.T) {
	for _, c := range []struct {
		schema, answer, want string // want "" = accepted
	}{
		{``, "anything at all", ""},
		{`{"type":"string","enum":["staging","prod"]}`, "prod", ""},
		{`{"type":"string","enum":["staging","prod"]}`, "Prod", "must be one of: staging, prod"},
		{`{"type":"string","minLength":3,"maxLength":5}`, "ab", "at least 3 characters"},
		{`{"type":"string","minLength":3,"maxLength":5}`, "abcdef", "at most 5 characters"},
		{`{"type":"string","maxLength":2}`, "éé", ""},
		{`{"type":"integer","minimum":1,"maximum":10}`, " 7 ", ""},
		{`{"type":"integer","minimum":1,"maximum":10}`, "0", "at least 1"},
		{`{"type":"integer","minimum":1,"maximum":10}`, "11", "at most 10"},
		{`{"type":"integer"}`, "2.5", "whole number"},
		{`{"type":"number"}`, "two", "must be a number"},
		{`{"type":"number"}`, "NaN", "must be a number"},
		{`{"type":"number","enum":[1.5,3]}`, "3", ""},
		{`{"type":"number","enum":[1.5,3]}`, "2", "one of: 1.5, 3"},
		{`{"type":"boolean"}`, "true", ""},
		{`{"type":"boolean"}`, "yes", "true or false"},
		{`{"type":"object"}`, "x", "answerSchema: type"},
	} {
		err := CheckAnswer(c.schema, c.answer)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: refused: %v", c.schema, c.answer, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s %q: %v, want one line with %q", c.schema, c.answer, err, c.want)
		}
	}
}

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

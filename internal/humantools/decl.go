package humantools

import (
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/tidwall/gjson"
)

// Tool is one declared human tool.
type Tool struct {
	Name        string
	Description string
	InputSchema string // a JSON Schema object, raw JSON
	// AnswerSchema is what the person's answer must be: a JSON Schema of
	// one string, number, integer or boolean (enum, minimum, maximum,
	// minLength, maxLength), raw JSON; "" any text.
	AnswerSchema string
	Mode         string // approvals.ModeHold or approvals.ModePark
}

// maxDecl bounds a declaration file: it is a handful of tool descriptions.
const maxDecl = 1 << 20

// Load reads a declaration file: a JSON array of
// {name, description, inputSchema, mode: "hold"|"park"}.
func Load(path string) ([]Tool, error) {
	// Only a regular file: a FIFO would hang the proxy's start.
	data, _, err := privfs.ReadRegular(path, "human tools", maxDecl)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse reads a declaration (see Load); src names it in errors.
func Parse(data []byte, src string) ([]Tool, error) {
	if !gjson.ValidBytes(data) {
		return nil, fmt.Errorf("human tools %s: not valid JSON", src)
	}
	list := gjson.ParseBytes(data)
	if !list.IsArray() {
		return nil, fmt.Errorf("human tools %s: want a JSON array of tools", src)
	}
	var out []Tool
	seen := map[string]bool{}
	var err error
	list.ForEach(func(i, v gjson.Result) bool {
		at := fmt.Sprintf("human tools %s: tool %d", src, i.Int()+1)
		if !v.IsObject() {
			err = fmt.Errorf("%s: not an object", at)
			return false
		}
		t := Tool{Name: v.Get("name").Str, Description: v.Get("description").Str, Mode: v.Get("mode").Str}
		if v.Get("name").Type != gjson.String || !validName(t.Name) {
			err = fmt.Errorf("%s: name %s: want 1 to 64 letters, digits, '_' or '-'", at, v.Get("name").Raw)
			return false
		}
		at += " (" + t.Name + ")"
		switch {
		case seen[t.Name]:
			err = fmt.Errorf("%s: name declared twice", at)
		case t.Mode != approvals.ModeHold && t.Mode != approvals.ModePark:
			err = fmt.Errorf("%s: mode %s: want \"hold\" or \"park\"", at, orMissing(v.Get("mode").Raw))
		case strings.TrimSpace(t.Description) == "":
			err = fmt.Errorf("%s: description is missing (the model reads it to know when to ask)", at)
		}
		if err != nil {
			return false
		}
		seen[t.Name] = true
		switch s := v.Get("inputSchema"); {
		case !s.Exists():
			t.InputSchema = `{"type":"object","properties":{}}`
		case s.IsObject() && (s.Get("type").Str == "object" || !s.Get("type").Exists()):
			t.InputSchema = s.Raw
		default:
			err = fmt.Errorf("%s: inputSchema must be a JSON Schema object of type \"object\"", at)
			return false
		}
		if s := v.Get("answerSchema"); s.Exists() {
			if err = approvals.CheckAnswerSchema(s); err != nil {
				err = fmt.Errorf("%s: answerSchema: %v", at, err)
				return false
			}
			t.AnswerSchema = s.Raw
		}
		out = append(out, t)
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("human tools %s: no tools declared", src)
	}
	return out, nil
}

func orMissing(raw string) string {
	if raw == "" {
		return "missing"
	}
	return raw
}

// validName keeps tool names to what every client accepts in a tool name.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

package token

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// A handles file declares a server's handles (docs/handles.md; its JSON
// Schema is docs/handles.schema.json):
//
//	{"handles": [{"name": "pid", "type": "number",
//	  "from": [{"tools": ["start_process"], "text": "Process started with PID (\\d+)"}],
//	  "starts": ["start_process"],
//	  "to": {"tools": ["read_process_output", "kill_process"]}}]}
//
// Every key is checked: a misspelt one is an error, never ignored.

// MaxHandlesFile bounds a handles file.
const MaxHandlesFile = 1 << 20

// ParseHandles reads a handles file's contents; file names it in errors.
func ParseHandles(data []byte, file string) ([]Spec, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("handles file %s: "+format, append([]any{file}, a...)...)
	}
	if len(data) > MaxHandlesFile {
		return nil, fail("larger than %d KiB", MaxHandlesFile>>10)
	}
	// An editor on Windows may start the file with byte-order marks, as
	// Cursor starts its payloads: JSON does not allow them, so they go.
	data = rawjson.TrimBOM(data)
	if !gjson.ValidBytes(data) {
		return nil, fail("not valid JSON (%s)", jsonErrorAt(data))
	}
	doc := gjson.ParseBytes(data)
	if !doc.IsObject() {
		return nil, fail("not a JSON object")
	}
	if err := onlyKeys(doc, "", "$schema", "handles"); err != nil {
		return nil, fail("%v", err)
	}
	list := doc.Get("handles")
	if !list.IsArray() || len(list.Array()) == 0 {
		return nil, fail(`"handles" must be a non-empty array`)
	}
	var specs []Spec
	var err error
	list.ForEach(func(i, h gjson.Result) bool {
		var s Spec
		if s, err = parseSpec(h, fmt.Sprintf("handles[%d]", i.Int())); err != nil {
			return false
		}
		specs = append(specs, s)
		return true
	})
	if err != nil {
		return nil, fail("%v", err)
	}
	if err := CheckAll(specs); err != nil {
		return nil, fail("%v", err)
	}
	return specs, nil
}

func parseSpec(h gjson.Result, at string) (Spec, error) {
	if !h.IsObject() {
		return Spec{}, fmt.Errorf("%s: not an object", at)
	}
	var s Spec
	var err error
	if s.Name, err = str(h, at, "name", true); err != nil {
		return s, err
	}
	at = fmt.Sprintf("%s (%q)", at, s.Name)
	if err := onlyKeys(h, at, "name", "arg", "type", "lifetime", "from", "starts", "to", "skip", "keep_if", "pattern", "min_length", "stand_ins", "repair", "inject", "description"); err != nil {
		return Spec{}, err
	}
	if s.Arg, err = str(h, at, "arg", false); err != nil {
		return s, err
	}
	if s.Arg == "" {
		s.Arg = s.Name
	}
	if err := parseChoices(h, at, &s); err != nil {
		return s, err
	}
	if s.From, err = parseSources(h.Get("from"), at+".from"); err != nil {
		return s, err
	}
	for _, f := range []struct {
		key string
		dst *[]string
	}{{"starts", &s.Starts}, {"skip", &s.Skip}, {"keep_if", &s.KeepIf}} {
		if *f.dst, err = strs(h, at, f.key); err != nil {
			return s, err
		}
	}
	if to := h.Get("to"); to.Exists() {
		if err := parseTo(to, at+".to", &s); err != nil {
			return s, err
		}
	}
	pattern, err := str(h, at, "pattern", false)
	if err != nil {
		return s, err
	}
	if pattern != "" {
		if s.Pattern, err = regexp.Compile(`^(?:` + pattern + `)$`); err != nil {
			return s, fmt.Errorf("%s.pattern: %v", at, err)
		}
	}
	if m := h.Get("min_length"); m.Exists() {
		if m.Type != gjson.Number || m.Int() < 1 || float64(m.Int()) != m.Num {
			return s, fmt.Errorf("%s.min_length: want a whole number of at least 1", at)
		}
		s.MinLen = int(m.Int())
	}
	if s.Repair, err = parseRepair(h, at); err != nil {
		return s, err
	}
	if _, err := str(h, at, "description", false); err != nil {
		return s, err
	}
	return s, nil
}

// parseRepair reads a handle's repair: true (a near miss of any long value
// is a typo: RepairDeclared), false (never repaired), absent (only values
// of RepairLen characters or more).
func parseRepair(h gjson.Result, at string) (Repair, error) {
	switch v := h.Get("repair"); {
	case !v.Exists():
		return RepairLongOnly, nil
	case v.Type == gjson.True:
		return RepairDeclared, nil
	case v.Type == gjson.False:
		return RepairNever, nil
	}
	return 0, fmt.Errorf("%s.repair: want true or false", at)
}

// parseChoices reads a handle's type, lifetime, stand_ins and inject,
// each one of a few words.
func parseChoices(h gjson.Result, at string, s *Spec) error {
	kind, err := choice(h, at, "type", "string", "number")
	if err != nil {
		return err
	}
	life, err := choice(h, at, "lifetime", "rotates", "stable")
	if err != nil {
		return err
	}
	standIns, err := choice(h, at, "stand_ins", "long", "all", "none")
	if err != nil {
		return err
	}
	inject, err := choice(h, at, "inject", "required", "always", "never")
	if err != nil {
		return err
	}
	s.Kind, s.Lifetime, s.StandIns = [...]Kind{KindString, KindNumber}[kind], [...]Lifetime{Rotates, Stable}[life],
		[...]StandIns{StandInsLong, StandInsAll, StandInsNone}[standIns]
	s.Inject = [...]InjectWhen{InjectRequired, InjectAlways, InjectNever}[inject]
	return nil
}

// choice reads key, one of words (absent or "": the first); it returns
// the index of the word given.
func choice(h gjson.Result, at, key string, words ...string) (int, error) {
	v, err := str(h, at, key, false)
	if err != nil || v == "" {
		return 0, err
	}
	if i := slices.Index(words, v); i >= 0 {
		return i, nil
	}
	want := make([]string, len(words))
	for i, w := range words {
		want[i] = strconv.Quote(w)
	}
	return 0, fmt.Errorf(`%s: %s %q: want %s or %s`, at, key, v, strings.Join(want[:len(want)-1], ", "), want[len(want)-1])
}

// parseTo reads a handle's to (at), the tools it goes into.
func parseTo(to gjson.Result, at string, s *Spec) error {
	var err error
	if !to.IsObject() {
		return fmt.Errorf("%s: not an object", at)
	}
	if err := onlyKeys(to, at, "tools", "match"); err != nil {
		return err
	}
	if s.To, err = strs(to, at, "tools"); err != nil {
		return err
	}
	match, err := str(to, at, "match", false)
	if err != nil {
		return err
	}
	if match != "" {
		if s.ToMatch, err = regexp.Compile(`^(?:` + match + `)$`); err != nil {
			return fmt.Errorf("%s.match: %v", at, err)
		}
	}
	if !s.Declared() {
		return fmt.Errorf("%s names no tools and no match", at)
	}
	return nil
}

func parseSources(v gjson.Result, at string) ([]Source, error) {
	var list []gjson.Result
	switch {
	case v.IsObject():
		list = []gjson.Result{v}
	case v.IsArray():
		list = v.Array()
	default:
		return nil, fmt.Errorf("%s: want a source or a list of sources", at)
	}
	var out []Source
	for i, s := range list {
		where := fmt.Sprintf("%s[%d]", at, i)
		if !s.IsObject() {
			return nil, fmt.Errorf("%s: not an object", where)
		}
		if err := onlyKeys(s, where, "tools", "meta", "json", "line", "text"); err != nil {
			return nil, err
		}
		var src Source
		var err error
		if src.Tools, err = strs(s, where, "tools"); err != nil {
			return nil, err
		}
		if src.Meta, err = str(s, where, "meta", false); err != nil {
			return nil, err
		}
		path, err := str(s, where, "json", false)
		if err != nil {
			return nil, err
		}
		if path != "" {
			if src.JSON, err = jsonPath(path); err != nil {
				return nil, fmt.Errorf("%s.json: %v", where, err)
			}
		}
		if src.Line, err = str(s, where, "line", false); err != nil {
			return nil, err
		}
		text, err := str(s, where, "text", false)
		if err != nil {
			return nil, err
		}
		if text != "" {
			if src.Text, err = regexp.Compile(text); err != nil {
				return nil, fmt.Errorf("%s.text: %v", where, err)
			}
		}
		out = append(out, src)
	}
	return out, nil
}

// jsonPath turns a dotted path ("page.cursor"; "\." for a dot inside a
// key) into a gjson path that means only that: every key escaped.
func jsonPath(p string) (string, error) {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p) && p[i+1] == '.':
			cur.WriteByte('.')
			i++
		case p[i] == '.':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(p[i])
		}
	}
	parts = append(parts, cur.String())
	for i, k := range parts {
		if k == "" {
			return "", fmt.Errorf("%q has an empty key", p)
		}
		parts[i] = gjson.Escape(k)
	}
	return strings.Join(parts, "."), nil
}

// onlyKeys refuses a member not in keys.
func onlyKeys(obj gjson.Result, at string, keys ...string) error {
	var err error
	obj.ForEach(func(k, _ gjson.Result) bool {
		for _, want := range keys {
			if k.Str == want {
				return true
			}
		}
		where := ""
		if at != "" {
			where = at + ": "
		}
		err = fmt.Errorf("%sunknown key %q (known: %s)", where, k.Str, strings.Join(keys, ", "))
		return false
	})
	return err
}

func str(obj gjson.Result, at, key string, required bool) (string, error) {
	v := obj.Get(gjson.Escape(key))
	switch {
	case !v.Exists() && required:
		return "", fmt.Errorf("%s: %q is required", at, key)
	case !v.Exists():
		return "", nil
	case v.Type != gjson.String:
		return "", fmt.Errorf("%s.%s: want a string", at, key)
	case v.Str == "" && required:
		return "", fmt.Errorf("%s.%s is empty", at, key)
	}
	return v.Str, nil
}

func strs(obj gjson.Result, at, key string) ([]string, error) {
	v := obj.Get(gjson.Escape(key))
	if !v.Exists() {
		return nil, nil
	}
	if !v.IsArray() {
		return nil, fmt.Errorf("%s.%s: want a list of strings", at, key)
	}
	var out []string
	var err error
	v.ForEach(func(_, s gjson.Result) bool {
		if s.Type != gjson.String || s.Str == "" {
			err = errors.New(at + "." + key + ": want a list of non-empty strings")
			return false
		}
		out = append(out, s.Str)
		return true
	})
	return out, err
}

// jsonErrorAt says where data stops being JSON: line and column (1-based,
// columns in bytes), and what is wrong there.
func jsonErrorAt(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		if err == nil {
			return "a strict JSON check refuses it; look for invalid UTF-8"
		}
		return err.Error()
	}
	off := min(int(syn.Offset), len(data))
	if off > 0 && syn.Offset <= int64(len(data)) && !strings.Contains(syn.Error(), "end of JSON input") {
		off-- // Offset is just past the byte that broke it
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
	return fmt.Sprintf("line %d, column %d: %s", line, col, syn.Error())
}

package approvals

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// A human tool's answerSchema says what the person's answer must be: one
// value of a type (string, number, integer, boolean), maybe one of an enum
// (a page offers one button a choice), maybe bounded (minimum, maximum;
// minLength, maxLength). The answer is text as typed. It is checked here,
// in the queue, by AnswerInput: every way an answer arrives (the inbox
// page, `approvals answer`, `approvals watch`, the supervisor's respond, a
// relay applying another machine's answer) goes through it. humantools
// checks a declared schema with CheckAnswerSchema; the page lays one out.

// ErrBadAnswer: an answer the question's answerSchema does not allow; the
// question still waits.
var ErrBadAnswer = errors.New("answer refused")

var answerTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true}

// CheckAnswerSchema reports what is wrong with an answerSchema, in one
// line naming the keyword.
func CheckAnswerSchema(s gjson.Result) error {
	if !s.IsObject() {
		return errors.New("want a JSON Schema object")
	}
	typ := s.Get("type")
	if typ.Type != gjson.String || !answerTypes[typ.Str] {
		got := typ.Raw
		if got == "" {
			got = "missing"
		}
		return fmt.Errorf("type %s: want \"string\", \"number\", \"integer\" or \"boolean\"", got)
	}
	if e := s.Get("enum"); e.Exists() {
		if !e.IsArray() || len(e.Array()) == 0 {
			return errors.New("enum: want a non-empty array")
		}
		for _, v := range e.Array() {
			if !valueOfType(v, typ.Str) {
				return fmt.Errorf("enum: %s is not a %s", v.Raw, typ.Str)
			}
		}
	}
	for _, k := range []string{"minimum", "maximum"} {
		if v := s.Get(k); v.Exists() && (v.Type != gjson.Number || typ.Str != "number" && typ.Str != "integer") {
			return fmt.Errorf("%s: want a number, for a number or an integer", k)
		}
	}
	for _, k := range []string{"minLength", "maxLength"} {
		if v := s.Get(k); v.Exists() && (v.Type != gjson.Number || v.Num < 0 || v.Num != math.Trunc(v.Num) || typ.Str != "string") {
			return fmt.Errorf("%s: want a whole number of characters, for a string", k)
		}
	}
	return nil
}

func valueOfType(v gjson.Result, typ string) bool {
	switch typ {
	case "string":
		return v.Type == gjson.String
	case "number":
		return v.Type == gjson.Number
	case "integer":
		return v.Type == gjson.Number && v.Num == math.Trunc(v.Num)
	}
	return v.Type == gjson.True || v.Type == gjson.False
}

// CheckAnswer reports, in one line a person reads, why answer does not
// fit schema (an answerSchema; "" takes any text).
func CheckAnswer(schema, answer string) error {
	if schema == "" {
		return nil
	}
	s := gjson.Parse(schema)
	if err := CheckAnswerSchema(s); err != nil {
		return fmt.Errorf("the question's answerSchema: %v", err)
	}
	typ := s.Get("type").Str
	var num float64
	switch typ {
	case "number", "integer":
		n, err := strconv.ParseFloat(strings.TrimSpace(answer), 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return fmt.Errorf("the answer must be a number")
		}
		if typ == "integer" && n != math.Trunc(n) {
			return fmt.Errorf("the answer must be a whole number")
		}
		num = n
		if v := s.Get("minimum"); v.Exists() && n < v.Num {
			return fmt.Errorf("the answer must be at least %s", v.Raw)
		}
		if v := s.Get("maximum"); v.Exists() && n > v.Num {
			return fmt.Errorf("the answer must be at most %s", v.Raw)
		}
	case "boolean":
		if a := strings.TrimSpace(answer); a != "true" && a != "false" {
			return fmt.Errorf("the answer must be true or false")
		}
	case "string":
		n := utf8.RuneCountInString(answer)
		if v := s.Get("minLength"); v.Exists() && float64(n) < v.Num {
			return fmt.Errorf("the answer must be at least %s characters", v.Raw)
		}
		if v := s.Get("maxLength"); v.Exists() && float64(n) > v.Num {
			return fmt.Errorf("the answer must be at most %s characters", v.Raw)
		}
	}
	if e := s.Get("enum"); e.Exists() {
		for _, v := range e.Array() {
			if typ == "string" && v.Str == answer || (typ == "number" || typ == "integer") && v.Num == num ||
				typ == "boolean" && v.Raw == strings.TrimSpace(answer) {
				return nil
			}
		}
		return fmt.Errorf("the answer must be %s", oneOf(e))
	}
	return nil
}

// oneOf is an enum's choices as a person reads them, control characters
// made visible: "one of: staging, prod".
func oneOf(enum gjson.Result) string {
	var names []string
	for _, v := range enum.Array() {
		names = append(names, Visible(v.String()))
	}
	return "one of: " + strings.Join(names, ", ")
}

// AnswerHint says in one line what an answer to a question whose
// answerSchema is schema must be (its choices, its type and bounds), for a
// person about to type it: the same facts CheckAnswer refuses an answer
// by, told before rather than after. "" when any text will do.
func AnswerHint(schema string) string {
	if schema == "" {
		return ""
	}
	s := gjson.Parse(schema)
	if err := CheckAnswerSchema(s); err != nil {
		return fmt.Sprintf("none can be taken: the question's answerSchema: %v", err)
	}
	if e := s.Get("enum"); e.Exists() {
		return oneOf(e)
	}
	typ := s.Get("type").Str
	if typ == "boolean" {
		return "true or false"
	}
	if typ == "string" {
		lo, hi := s.Get("minLength"), s.Get("maxLength")
		switch {
		case lo.Exists() && hi.Exists():
			return fmt.Sprintf("text of %s to %s characters", lo.Raw, hi.Raw)
		case lo.Exists():
			return fmt.Sprintf("text of at least %s characters", lo.Raw)
		case hi.Exists():
			return fmt.Sprintf("text of at most %s characters", hi.Raw)
		}
		return ""
	}
	what := "a number"
	if typ == "integer" {
		what = "a whole number"
	}
	lo, hi := s.Get("minimum"), s.Get("maximum")
	switch {
	case lo.Exists() && hi.Exists():
		return fmt.Sprintf("%s from %s to %s", what, lo.Raw, hi.Raw)
	case lo.Exists():
		return fmt.Sprintf("%s, at least %s", what, lo.Raw)
	case hi.Exists():
		return fmt.Sprintf("%s, at most %s", what, hi.Raw)
	}
	return what
}

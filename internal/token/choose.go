package token

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// DefaultMinLen is the shortest value taken for a token unless the user says
// otherwise. Real session tokens are hundreds of characters; words that
// follow "session_token:" in prose ("The", "resumed_session_token") are not.
const DefaultMinLen = 20

// ErrAmbiguous means a result carried two or more different token-shaped
// values and nothing said which one is the token. Nothing is stored then:
// guessing wrong hands the next call a token of somebody else's choosing.
var ErrAmbiguous = errors.New("the result carries different token-shaped values")

// Rules say what counts as a token in a result.
type Rules struct {
	Key     string         // the key the server returns the token under
	MinLen  int            // shortest value taken from a prose line (0: DefaultMinLen)
	Pattern *regexp.Regexp // when set, a token must match it whole
}

// LooksLikeToken reports whether v has a token's shape as a prose line
// must show it: one run of printable ASCII without spaces, at least MinLen
// long, with both letters and digits; with Pattern set, matching Pattern
// whole instead.
func (r Rules) LooksLikeToken(v string) bool {
	return r.checkProse(v) == nil
}

// checkProse checks a value read from prose (a `key: value` line): the
// shape rules guard against words that follow the key ("session_token: The
// current token"), unless the user declared the value's pattern, which
// replaces them wholly.
func (r Rules) checkProse(v string) error {
	if err := Validate(v); err != nil {
		return err
	}
	if r.Pattern != nil {
		return r.checkPattern(v)
	}
	min := r.MinLen
	if min <= 0 {
		min = DefaultMinLen
	}
	if len(v) < min {
		return fmt.Errorf("a %d-character value is shorter than --min-token-length %d", len(v), min)
	}
	letter, digit := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	if !letter || !digit {
		return errors.New("the value lacks letters or digits")
	}
	return nil
}

// checkDeclared checks a value the server put under the declared key (in
// _meta or a JSON field): the key is the contract, so the value is taken
// as it is, printable and bounded, and matching Pattern when one is set.
func (r Rules) checkDeclared(v string) error {
	if err := Validate(v); err != nil {
		return err
	}
	return r.checkPattern(v)
}

func (r Rules) checkPattern(v string) error {
	if r.Pattern != nil {
		if loc := r.Pattern.FindStringIndex(v); loc == nil || loc[0] != 0 || loc[1] != len(v) {
			return errors.New("the value does not match --token-pattern")
		}
	}
	return nil
}

// CompilePattern compiles a --token-pattern; the whole token must match.
func CompilePattern(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	if _, err := regexp.Compile(expr); err != nil {
		return nil, fmt.Errorf("--token-pattern: %w", err)
	}
	return regexp.Compile(`^(?:` + expr + `)$`)
}

// Choose picks the token from a result, under one key (see choose).
func Choose(r Result, rules Rules) (string, Where, error) {
	return choose(r, rules.Key, gjson.Escape(rules.Key), rules.Key, rules)
}

// scalar returns a JSON value that is a non-empty string or a number as
// text (a number as its literal), and whether it is one.
func scalar(v gjson.Result) (string, bool) {
	switch {
	case v.Type == gjson.String && v.Str != "":
		return v.Str, true
	case v.Type == gjson.Number:
		return v.Raw, true
	}
	return "", false
}

// choose picks one value from a result. In order of trust: _meta.<meta>
// (the server's own channel; when present, nothing else is asked), then
// the value at the JSON path in structuredContent and in a text block that
// is a JSON object, and a text line that is nothing but `<line>: <value>`.
// Values under a declared key are the server's and are taken as they are
// (a string or a number, printable, bounded, matching Pattern when set); a
// value from a line must look like a token (Rules), else it is a mention,
// not a candidate ("session_token: The current token"). A mention inside a
// sentence, a code call or a quotation is never a candidate. Two or more
// different candidates give ErrAmbiguous. No candidate: "", "", nil. An
// empty meta, path or line is not looked at.
func choose(r Result, meta, path, line string, rules Rules) (string, Where, error) {
	v, where, _, err := chooseFrom(r, meta, path, line, rules)
	return v, where, err
}

// chooseFrom is choose, also saying whether the value came from a prose
// line (and from nothing more trusted that agreed with it).
func chooseFrom(r Result, meta, path, line string, rules Rules) (string, Where, bool, error) {
	if meta != "" {
		if v := r.Meta.Get(gjson.Escape(meta)); v.Exists() {
			val, ok := scalar(v)
			if !ok {
				return "", FromMeta, false, fmt.Errorf("_meta.%s is not a string or a number; nothing stored", meta)
			}
			if err := rules.checkDeclared(val); err != nil {
				return "", FromMeta, false, fmt.Errorf("_meta.%s cannot be taken: %w; nothing stored", meta, err)
			}
			return val, FromMeta, false, nil
		}
	}
	var (
		tok      string
		src      Where
		distinct int
		refused  error
		onlyLine = true // every candidate equal to tok came from a line
	)
	consider := func(v string, from Where, declared bool) {
		check := rules.checkProse
		if declared {
			check = rules.checkDeclared
		}
		if err := check(v); err != nil {
			if declared && refused == nil {
				refused = fmt.Errorf("the %s value in %s cannot be taken: %w; nothing stored", unescapePath(path), from, err)
			}
			return
		}
		switch {
		case distinct == 0:
			tok, src, distinct = v, from, 1
		case v != tok:
			distinct++
		}
		if v == tok && declared {
			onlyLine = false
		}
	}
	if path != "" {
		if v, ok := scalar(r.Structured.Get(path)); ok {
			consider(v, FromStructured, true)
		}
	}
	for _, t := range r.Texts {
		field, lines := textCandidates(t, path, line)
		if field != "" {
			consider(field, FromText, true)
		}
		for _, c := range lines {
			consider(c, FromText, false)
		}
	}
	name := line
	if name == "" {
		name = unescapePath(path)
	}
	switch {
	case distinct > 1:
		return "", "", false, fmt.Errorf("%w (%d different %s values); nothing stored", ErrAmbiguous, distinct, name)
	case distinct == 1:
		return tok, src, onlyLine, nil
	}
	return "", "", false, refused
}

// unescapePath is a gjson path as the user wrote it, for messages.
func unescapePath(path string) string { return strings.ReplaceAll(path, `\`, "") }

// untrustedOpen and untrustedClose are the wrapper Gemini CLI puts around MCP
// text before the model (and the AfterTool hook) sees it.
const (
	untrustedOpen  = "<untrusted_context>"
	untrustedClose = "</untrusted_context>"
)

// textCandidates returns the values a text block offers: the value at path
// (a string or a number) when the whole block is a JSON object, else every
// line that is nothing but `key: value` (or `key=value`), where only
// whitespace and a list bullet may come before the key, the key may be
// quoted or in markdown emphasis, the value may be quoted, and nothing may
// follow it, and that stands outside what the tool passes through: a
// fenced code block (``` or ~~~) or a block quote (see passThrough). An
// empty path or key is not looked for.
func textCandidates(text, path, key string) (field string, lines []string) {
	body := unwrapText(text)
	if strings.HasPrefix(body, "{") && gjson.Valid(body) {
		if path == "" {
			return "", nil
		}
		v, _ := scalar(gjson.Get(body, path))
		return v, nil
	}
	if key == "" {
		return "", nil
	}
	// Jump from one occurrence of the key to the next (a large result has
	// thousands of lines and few keys), and look at the line around it.
	var quoted passThrough
	for from := 0; from < len(body); {
		i := strings.Index(body[from:], key)
		if i < 0 {
			break
		}
		i += from
		lineStart := strings.LastIndexByte(body[:i], '\n') + 1
		lineEnd := strings.IndexByte(body[i:], '\n')
		if lineEnd < 0 {
			lineEnd = len(body)
		} else {
			lineEnd += i
		}
		if v, ok := keyLine(body[lineStart:lineEnd], key); ok && !quoted.holds(body, lineStart) {
			lines = append(lines, v)
		}
		from = max(lineEnd, i+1) // a key holding '\n' must still move on
	}
	return "", lines
}

// unwrapText is a text block without the wrapper Gemini CLI puts around it.
func unwrapText(text string) string {
	body := strings.TrimSpace(text)
	if strings.HasPrefix(body, untrustedOpen) && strings.HasSuffix(body, untrustedClose) {
		body = strings.TrimSpace(body[len(untrustedOpen) : len(body)-len(untrustedClose)])
	}
	return body
}

// keyLine reports whether line is nothing but `key: value` and returns the
// value.
func keyLine(line, key string) (string, bool) {
	s := strings.TrimRight(line, " \t\r")
	s = strings.TrimLeft(s, " \t")
	// One list bullet: "-", "*", "+", "•" or "1." / "1)".
	switch {
	case strings.HasPrefix(s, "- "), strings.HasPrefix(s, "* "), strings.HasPrefix(s, "+ "):
		s = strings.TrimLeft(s[2:], " \t")
	case strings.HasPrefix(s, "• "):
		s = strings.TrimLeft(s[len("• "):], " \t")
	default:
		j := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > 0 && j+1 < len(s) && (s[j] == '.' || s[j] == ')') && s[j+1] == ' ' {
			s = strings.TrimLeft(s[j+2:], " \t")
		}
	}
	// The key, possibly quoted or emphasized: "key", 'key', `key`, **key**.
	open := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("\"'`*_", r) })
	if open < 0 || !strings.HasPrefix(s[open:], key) {
		return "", false
	}
	wrap := s[:open]
	s = s[open+len(key):]
	if !strings.HasPrefix(s, reverse(wrap)) {
		// "**key:** value" puts the colon inside the emphasis.
		if len(s) > 0 && (s[0] == ':' || s[0] == '=') && strings.HasPrefix(s[1:], reverse(wrap)) {
			s = string(s[0]) + s[1+len(wrap):]
		} else {
			return "", false
		}
	} else {
		s = s[len(wrap):]
	}
	s = strings.TrimLeft(s, " \t")
	if s == "" || (s[0] != ':' && s[0] != '=') {
		return "", false
	}
	s = strings.TrimLeft(s[1:], " \t")
	if len(s) >= 2 && strings.IndexByte("\"'`", s[0]) >= 0 && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	if s == "" || strings.ContainsAny(s, " \t") {
		return "", false // a sentence, not a value
	}
	return s, true
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

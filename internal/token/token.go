// Package token holds the token logic shared by hook mode and proxy mode:
// validating a token, finding it in a tool result, injecting it into tool
// arguments and redacting it from what the model reads.
//
// Everything works on raw JSON bytes through gjson (read) and sjson (edit),
// so bytes we do not touch survive exactly: key order, number spelling and
// unknown fields.
package token

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// MaxLen is the longest token accepted. Real tokens are a few hundred bytes;
// the cap keeps a hostile result from filling the state dir.
const MaxLen = 16 << 10

// Placeholder replaces a redacted token where the token cannot simply be
// dropped. A call that carries it is treated as carrying no token, so a model
// that copies it back still gets the real one injected.
const Placeholder = "[session_token held by interceptor]"

// Validate reports whether tok is acceptable: one line of printable ASCII
// (0x21-0x7E), non-empty, at most MaxLen bytes. The error never includes the
// token itself.
func Validate(tok string) error {
	if tok == "" {
		return errors.New("token is empty")
	}
	if len(tok) > MaxLen {
		return fmt.Errorf("token is %d bytes, more than the %d allowed", len(tok), MaxLen)
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c < 0x21 || c > 0x7e {
			return fmt.Errorf("token has a byte 0x%02x at offset %d (only printable ASCII without spaces is allowed)", c, i)
		}
	}
	return nil
}

// Mask shortens a token for logs and `token show`: enough to tell two tokens
// apart, never enough to use one.
func Mask(tok string) string {
	if len(tok) <= 12 {
		return strings.Repeat("*", len(tok))
	}
	return fmt.Sprintf("%s…%s (%d chars)", tok[:4], tok[len(tok)-4:], len(tok))
}

// Source says where in a result a token was found.
type Source string

const (
	FromMeta       Source = "_meta"
	FromStructured Source = "structuredContent"
	FromText       Source = "text"
)

// Result is what a client lets us see of an MCP tool result. Any part may be
// missing: Claude Code and Gemini never show _meta to a hook.
type Result struct {
	Meta       gjson.Result // the _meta object
	Structured gjson.Result // the structuredContent object
	Texts      []string     // text content blocks, in order
}

// Find looks for the token under key, in order: _meta, structuredContent,
// then each text block. It returns the first non-empty string value found
// (an empty one means the server sent no token); the caller validates it.
func Find(r Result, key string) (string, Source, bool) {
	path := gjson.Escape(key)
	if v := r.Meta.Get(path); v.Type == gjson.String && v.Str != "" {
		return v.Str, FromMeta, true
	}
	if v := r.Structured.Get(path); v.Type == gjson.String && v.Str != "" {
		return v.Str, FromStructured, true
	}
	for _, t := range r.Texts {
		if tok, ok := FindInText(t, key); ok {
			return tok, FromText, true
		}
	}
	return "", "", false
}

// untrustedOpen and untrustedClose are the wrapper Gemini CLI puts around MCP
// text before the model (and the AfterTool hook) sees it.
const (
	untrustedOpen  = "<untrusted_context>"
	untrustedClose = "</untrusted_context>"
)

// FindInText finds the token in a text block: either the whole text is a JSON
// object with a string field key, or a line holds `key: value` (also
// `key=value`, quoted or in bold). The key must stand as a word of its own, so
// `received_session_token=…` does not count.
func FindInText(text, key string) (string, bool) {
	body := strings.TrimSpace(text)
	if strings.HasPrefix(body, untrustedOpen) && strings.HasSuffix(body, untrustedClose) {
		body = strings.TrimSpace(body[len(untrustedOpen) : len(body)-len(untrustedClose)])
	}
	if strings.HasPrefix(body, "{") && gjson.Valid(body) {
		if v := gjson.Get(body, gjson.Escape(key)); v.Type == gjson.String && v.Str != "" {
			return v.Str, true
		}
	}
	// Jump from one occurrence of the key to the next (a large result has
	// thousands of lines and few keys), and look at the line around it.
	for from := 0; key != ""; {
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
		line := body[lineStart:lineEnd]
		if _, start, end, ok := findKeyValue(line, key); ok {
			return line[start:end], true
		}
		from = max(lineEnd, i+1) // a key holding '\n' must still move on
	}
	return "", false
}

// findKeyValue finds `key <sep> value` in line, where sep is ':' or '=',
// optionally with quotes or markdown emphasis around the key and quotes around
// the value. It returns where the key starts and where the value starts and
// ends.
func findKeyValue(line, key string) (keyAt, start, end int, ok bool) {
	if key == "" {
		return 0, 0, 0, false
	}
	from := 0
	for {
		i := strings.Index(line[from:], key)
		if i < 0 {
			return 0, 0, 0, false
		}
		i += from
		from = i + len(key)
		if i > 0 && isWordByte(line[i-1]) {
			continue
		}
		j := i + len(key)
		j = skipAny(line, j, "\"'*`")
		j = skipAny(line, j, " \t")
		if j >= len(line) || (line[j] != ':' && line[j] != '=') {
			continue
		}
		j = skipAny(line, j+1, " \t")
		quote := byte(0)
		if j < len(line) && (line[j] == '"' || line[j] == '\'' || line[j] == '`') {
			quote = line[j]
			j++
		}
		k := j
		for k < len(line) && line[k] > ' ' && line[k] != 0x7f && line[k] != quote {
			k++
		}
		if quote == 0 {
			// An unquoted value ends at trailing punctuation that is not part of
			// a token in prose, e.g. "session_token: abc." or "(…: abc)".
			for k > j && strings.IndexByte(",;.)]}", line[k-1]) >= 0 {
				k--
			}
		}
		if k == j {
			continue
		}
		return i, j, k, true
	}
}

func skipAny(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ValidateKey checks an argument or result key name given by the user: it
// must be non-empty, valid UTF-8 and free of control characters.
func ValidateKey(key string) error {
	if key == "" {
		return errors.New("key name is empty")
	}
	if !utf8.ValidString(key) {
		return fmt.Errorf("key name %q is not valid UTF-8", key)
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("key name %q has a control character", key)
		}
	}
	return nil
}

// Carries reports whether the arguments already carry a value for any of the
// keys. An absent key, null, an empty string or the redaction Placeholder
// carries nothing. One pass over the arguments, however many keys.
func Carries(args gjson.Result, keys []string) bool {
	carries := false
	seen := make(map[string]bool, len(keys))
	rawjson.Fields(args.Raw, func(k, raw string) bool {
		if seen[k] || !slices.Contains(keys, k) {
			return true
		}
		seen[k] = true // the first of duplicate keys counts, as gjson.Get
		v := gjson.Parse(raw)
		switch {
		case v.Type == gjson.Null:
		case v.Type == gjson.String && (strings.TrimSpace(v.Str) == "" || v.Str == Placeholder):
		default:
			carries = true
			return false
		}
		return true
	})
	return carries
}

// Inject returns args with key set to tok. Every other byte of args is kept
// as it was. args must be valid JSON, as it is when it comes from a parsed
// payload (it is not validated again: it can be megabytes); only its kind is
// checked.
func Inject(args, key, tok string) ([]byte, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	t := strings.TrimSpace(args)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, errors.New("tool arguments are not a JSON object")
	}
	present, members := false, 0
	rawjson.Fields(args, func(k, _ string) bool {
		members++
		present = k == key
		return !present
	})
	if present {
		// Replace the value in place, keeping the key's position.
		out, err := sjson.Set(args, gjson.Escape(key), tok)
		if err != nil {
			return nil, fmt.Errorf("setting argument %q: %w", key, err)
		}
		return []byte(out), nil
	}
	// Absent (the usual case): add the member before the closing brace,
	// without another pass over the arguments.
	closing := strings.LastIndexByte(args, '}')
	out := make([]byte, 0, len(args)+len(key)+len(tok)+8)
	out = append(out, args[:closing]...)
	if members > 0 {
		out = append(out, ',')
	}
	out = rawjson.AppendString(out, key)
	out = append(out, ':')
	out = rawjson.AppendString(out, tok)
	return append(out, args[closing:]...), nil
}

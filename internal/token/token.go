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
// apart, never enough to use one. At most a quarter of the token and never
// more than 8 characters are shown.
func Mask(tok string) string {
	show := min(len(tok)/4, 8)
	if show < 2 {
		return strings.Repeat("*", len(tok))
	}
	head := (show + 1) / 2
	tail := show - head
	return fmt.Sprintf("%s…%s (%d chars)", tok[:head], tok[len(tok)-tail:], len(tok))
}

// Where says where in a result a value was found.
type Where string

const (
	FromMeta       Where = "_meta"
	FromStructured Where = "structuredContent"
	FromText       Where = "text"
)

// Result is what a client lets us see of an MCP tool result. Any part may be
// missing: Claude Code and Gemini never show _meta to a hook.
type Result struct {
	Meta       gjson.Result // the _meta object
	Structured gjson.Result // the structuredContent object
	Texts      []string     // text content blocks, in order
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
// keys. An absent key, null, an empty string or a stand-in carries nothing. One pass over the arguments, however many keys.
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
		case v.Type == gjson.String && strings.TrimSpace(v.Str) == "":
		case v.Type == gjson.String && isStandIn(v.Str):
		default:
			carries = true
			return false
		}
		return true
	})
	return carries
}

// Inject returns args with key set to tok, a JSON string. Every other byte
// of args is kept as it was. args must be valid JSON, as it is when it comes
// from a parsed payload (it is not validated again: it can be megabytes);
// only its kind is checked.
func Inject(args, key, tok string) ([]byte, error) {
	return InjectRaw(args, key, rawjson.AppendString(nil, tok))
}

// InjectValue returns args with key set to v as kind says: a JSON string,
// or the number v spells.
func InjectValue(args, key, v string, kind Kind) ([]byte, error) {
	if kind == KindNumber {
		if !isNumber(v) {
			return nil, fmt.Errorf("argument %q: the held value is not a number", key)
		}
		return InjectRaw(args, key, []byte(v))
	}
	return Inject(args, key, v)
}

// InjectRaw returns args with key set to the JSON value raw.
func InjectRaw(args, key string, raw []byte) ([]byte, error) {
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
		out, err := sjson.SetRaw(args, gjson.Escape(key), string(raw))
		if err != nil {
			return nil, fmt.Errorf("setting argument %q: %w", key, err)
		}
		return []byte(out), nil
	}
	// Absent (the usual case): add the member before the closing brace,
	// without another pass over the arguments.
	closing := strings.LastIndexByte(args, '}')
	out := make([]byte, 0, len(args)+len(key)+len(raw)+8)
	out = append(out, args[:closing]...)
	if members > 0 {
		out = append(out, ',')
	}
	out = rawjson.AppendString(out, key)
	out = append(out, ':')
	out = append(out, raw...)
	return append(out, args[closing:]...), nil
}

func isStandIn(s string) bool {
	_, ok := ParseStandIn(s)
	return ok
}

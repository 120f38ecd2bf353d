package children

import (
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// TokenKey is the argument and field name of the tokens interceptor holds.
const TokenKey = "session_token"

// Viewer renders events and approvals for a parent agent or a person:
// every token the state dir's store holds (current and history), and every
// string under a session_token member, becomes a stand-in
// (token.MaskedJSON); control and format characters become visible \u
// escapes.
type Viewer struct{ held token.Held }

// NewViewer reads the tokens the state dir holds now.
func NewViewer(stateDir string) *Viewer {
	recs, _ := state.New(stateDir).List("")
	v := &Viewer{}
	seen := map[string]bool{}
	for _, r := range recs {
		for _, t := range r.Held() {
			if t != "" && !seen[t] {
				seen[t] = true
				v.held = append(v.held, t)
			}
		}
	}
	return v
}

// JSON masks raw JSON text. Besides the held tokens, a token a text
// offers the way a capture hook would take it (a `session_token: <value>`
// line, a JSON body's field) is masked too: a client may print a result
// before its post-tool hook has stored the token (Codex does).
func (v *Viewer) JSON(raw string) string {
	held := append(token.Held(nil), v.held...)
	rules := token.Rules{Key: TokenKey}
	rawjson.MapStrings(raw, func(s string, isKey bool) (string, bool) {
		if !isKey && strings.Contains(s, TokenKey) {
			if tok, _, err := token.Choose(token.Result{Texts: []string{s}}, rules); err == nil && tok != "" {
				held = append(held, tok)
			}
		}
		return "", false
	})
	return Visible(token.MaskedJSON(raw, TokenKey, held))
}

// Visible replaces control characters (but newline and tab) and format
// characters (bidi overrides, zero-width) with \uXXXX escapes, valid both
// in JSON strings and as text a person reads.
func Visible(s string) string {
	clean := true
	for _, r := range s {
		if hidden(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !hidden(r) {
			b.WriteRune(r)
			continue
		}
		units := []uint16{uint16(r)}
		if r > 0xffff {
			a, z := utf16.EncodeRune(r)
			units = []uint16{uint16(a), uint16(z)}
		}
		for _, u := range units {
			b.WriteString(`\u`)
			const hex = "0123456789abcdef"
			b.WriteByte(hex[u>>12&0xf])
			b.WriteByte(hex[u>>8&0xf])
			b.WriteByte(hex[u>>4&0xf])
			b.WriteByte(hex[u&0xf])
		}
	}
	return b.String()
}

func hidden(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

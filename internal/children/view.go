package children

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// TokenKey is the argument and field name of the tokens interceptor holds.
const TokenKey = "session_token"

// Viewer renders events and approvals for a parent agent or a person:
// every value the state dir's store holds for the child's client sessions
// and every server's current one, and every string under a session_token
// member, becomes a stand-in (token.MaskedJSON); control and format
// characters become visible \u escapes (approvals.VisibleJSON).
type Viewer struct{ held token.Held }

// NewViewer reads the values the state dir holds now for sessions (the
// child's client sessions) and each server's current ones: one file per
// server and session, however many other sessions the store holds.
func NewViewer(stateDir string, sessions ...string) *Viewer {
	st := state.New(stateDir)
	servers, _ := st.Servers()
	reads := []string{""} // each server's current record
	for _, session := range sessions {
		if session != "" {
			reads = append(reads, session)
		}
	}
	v := &Viewer{}
	seen := map[string]bool{}
	for _, srv := range servers {
		for _, session := range reads {
			rec, err := st.Get(srv, session)
			if err != nil {
				continue
			}
			for _, t := range rec.Held() {
				if t != "" && !seen[t] {
					seen[t] = true
					v.held = append(v.held, t)
				}
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
	rawjson.MapStrings(raw, func(s string, isKey bool) (string, bool) {
		if !isKey {
			held = offered(held, s)
		}
		return "", false
	})
	return approvals.VisibleJSON(token.MaskedJSON(raw, TokenKey, held))
}

// Text masks one string as JSON masks a string value: what the string
// offers is masked too. Its hidden characters stay (a Go string is no
// escape): whoever shows it renders it Visible, or encodes it through
// approvals.VisibleJSON.
func (v *Viewer) Text(s string) string {
	held := offered(append(token.Held(nil), v.held...), s)
	return validText(token.NewMasker(TokenKey, held).Text(s))
}

// offered is held with the token s offers, if it offers one.
func offered(held token.Held, s string) token.Held {
	if strings.Contains(s, TokenKey) {
		if tok, _, err := token.Choose(token.Result{Texts: []string{s}}, token.Rules{Key: TokenKey}); err == nil && tok != "" {
			held = append(held, tok)
		}
	}
	return held
}

// poll masks a poll's result in place, as JSON masked it when poll was one
// JSON text: a token offered anywhere in it is masked everywhere in it.
// The JSON it holds (each event, each request's input) is compacted,
// masked and rendered with visible escapes; the strings the child, the
// model or a person wrote (the child's name, a tool's name and call id)
// are masked. The status, the times and the queue's ids and kinds are
// interceptor's own, and readers act on them.
func (v *Viewer) poll(r *PollResult) {
	held := append(token.Held(nil), v.held...)
	var raws []*json.RawMessage
	var texts []*string
	visit := func(t *string, raw *json.RawMessage) {
		switch {
		case t != nil:
			held = offered(held, *t)
			texts = append(texts, t)
		case raw != nil:
			var b bytes.Buffer
			if json.Compact(&b, *raw) == nil {
				*raw = b.Bytes()
			}
			rawjson.MapStrings(string(*raw), func(s string, isKey bool) (string, bool) {
				if !isKey {
					held = offered(held, s)
				}
				return "", false
			})
			raws = append(raws, raw)
		}
	}
	// In the order of the JSON text: the order tokens are found in.
	visit(&r.Child, nil)
	for i := range r.Events {
		visit(nil, &r.Events[i].Event)
	}
	for i := range r.PendingApprovals {
		a := &r.PendingApprovals[i]
		visit(&a.ToolName, nil)
		visit(&a.ToolUseID, nil)
		visit(nil, &a.Input)
	}
	m := token.NewMasker(TokenKey, held)
	for _, t := range texts {
		*t = m.Text(*t)
	}
	for _, raw := range raws {
		*raw = json.RawMessage(approvals.VisibleJSON(m.JSON(string(*raw))))
	}
}

// validText is s as its JSON text reads back: each byte that is not UTF-8
// a U+FFFD, as encoding/json and approvals.VisibleJSON write it.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // utf8.RuneError for a byte that is not UTF-8
		i += n
	}
	return b.String()
}

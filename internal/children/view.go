package children

import (
	"strings"

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
	rules := token.Rules{Key: TokenKey}
	rawjson.MapStrings(raw, func(s string, isKey bool) (string, bool) {
		if !isKey && strings.Contains(s, TokenKey) {
			if tok, _, err := token.Choose(token.Result{Texts: []string{s}}, rules); err == nil && tok != "" {
				held = append(held, tok)
			}
		}
		return "", false
	})
	return approvals.VisibleJSON(token.MaskedJSON(raw, TokenKey, held))
}

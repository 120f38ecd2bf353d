package approvals

import (
	"sort"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// DefaultKey is the token argument when a Call names none (inject's --arg
// default).
const DefaultKey = "session_token"

// Secrets are what a request must not show its supervisor: the child's
// tokens. A supervisor (a person, or a parent agent's model) reads the
// record, so the record holds stand-ins instead (token.MaskedJSON), while
// the call itself keeps the real tokens; a stand-in in the supervisor's new
// input gets its token back (token.ResolveStandIns).
type Secrets struct {
	// Key is the token argument: every value under it is shown as a
	// stand-in, held or not.
	Key string
	// Held is the tokens the store holds for the call's session, on any
	// server, newest first.
	Held token.Held
}

// LoadSecrets reads the tokens the store holds for session, on every
// server (with session "", the servers' current tokens: what a call without
// a session gets injected). Files that cannot be read are left out: the
// values under key are masked all the same, and doctor reports the files.
func LoadSecrets(tokens *state.Store, session, key string) Secrets {
	if key == "" {
		key = DefaultKey
	}
	s := Secrets{Key: key}
	if tokens == nil {
		return s
	}
	recs, _ := tokens.List("")
	var mine []state.Record
	for _, r := range recs {
		if r.Session == session || session == "" && r.Current {
			mine = append(mine, r)
		}
	}
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].Updated.After(mine[j].Updated) })
	seen := map[string]bool{"": true}
	for _, r := range mine {
		for _, t := range r.Held() {
			if !seen[t] { // a session's token is also its server's current one
				seen[t] = true
				s.Held = append(s.Held, t)
			}
		}
	}
	return s
}

// mask is input as a supervisor may see it.
func (s Secrets) mask(input string) string {
	return token.MaskedJSON(input, s.Key, s.Held)
}

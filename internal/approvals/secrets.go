package approvals

import (
	"fmt"
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
// input gets its token back (token.ResolveStandIns), but only a token the
// session holds on the server whose tool the call is (ToolValues).
type Secrets struct {
	// Key is the token argument: every value under it is shown as a
	// stand-in, held or not.
	Key string
	// Held is the tokens the store holds for the call's session, on any
	// server, newest first: masked.
	Held token.Held
	// Others are more tokens the record masks but a stand-in never
	// resolves to: other sessions' (see LoadSecrets).
	Others token.Held
	// servers are the store's servers; byServer the tokens of Held by the
	// server that holds them, the only ones a stand-in resolves to.
	servers  []string
	byServer map[string]token.Held
}

// LoadSecrets reads the tokens to mask in a call's record. With a session
// it reads that session's tokens on every server (Held) and every server's
// current token (Others): one file per server each, whatever the number of
// stored sessions, so the approve hook costs the same at 10 or 100,000 of
// them. With session "" (an asker that cannot tell its session: a human
// tools server of Codex, Gemini CLI or OpenCode) Held is the servers'
// current tokens (what a call without a session gets injected) and Others
// every token the store holds, of every session: that reads every record,
// once per question. The approve hook and permit always know their session
// (every client observed sends it), so their cost stays per server. Files
// that cannot be read are left out: the values under key are masked all
// the same, and doctor reports the files.
func LoadSecrets(tokens *state.Store, session, key string) Secrets {
	if key == "" {
		key = DefaultKey
	}
	s := Secrets{Key: key, byServer: map[string]token.Held{}}
	if tokens == nil {
		return s
	}
	if session == "" {
		recs, _ := tokens.List("")
		var current []state.Record
		for _, r := range recs {
			if r.Current {
				current = append(current, r)
				s.byServer[r.Server] = r.Held()
			}
		}
		s.servers, _ = tokens.Servers()
		s.Held = newestHeld(current, nil)
		s.Others = newestHeld(recs, s.Held)
		return s
	}
	s.servers, _ = tokens.Servers()
	var mine, current []state.Record
	for _, srv := range s.servers {
		if r, err := tokens.Get(srv, session); err == nil {
			mine = append(mine, r)
			s.byServer[srv] = r.Held()
		}
		if r, err := tokens.Get(srv, ""); err == nil {
			current = append(current, r)
		}
	}
	s.Held = newestHeld(mine, nil)
	s.Others = newestHeld(current, s.Held)
	return s
}

// ToolValues is what a stand-in in a supervisor's new input for a call of
// tool may name: the values the call's session holds on the one server of
// the store whose tool it is (owns says whether it is server's). A stand-in
// of one server's value must never reach another server's tool (a chat
// post the model planted it in): the error says why none may, for a tool
// of no server interceptor holds values for, or one that could be either
// of two servers' (mcp__wf__admin__drop with wf and wf__admin).
func (s Secrets) ToolValues(tool string, owns func(server string) bool) (token.Held, error) {
	var found []string
	for _, srv := range s.servers {
		if owns(srv) {
			found = append(found, srv)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%s is no tool of a server interceptor holds values for, so a stand-in names nothing it may be given", tool)
	case 1:
		return s.byServer[found[0]], nil
	}
	return nil, fmt.Errorf("%s could be a tool of server %q or of server %q, so neither's value is given to it", tool, found[0], found[1])
}

// newestHeld is the tokens of recs, newest record first, each once and none
// of skip.
func newestHeld(recs []state.Record, skip token.Held) token.Held {
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Updated.After(recs[j].Updated) })
	seen := map[string]bool{"": true}
	for _, t := range skip {
		seen[t] = true
	}
	var out token.Held
	for _, r := range recs {
		for _, t := range r.Held() {
			if !seen[t] { // a session's token is also its server's current one
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// Mask is raw JSON as a supervisor may see it: Held and Others as
// stand-ins, and every value under Key.
func (s Secrets) Mask(raw string) string {
	return token.MaskedJSON(raw, s.Key, s.all())
}

// MaskText is a string as Mask shows one that is a JSON value outside Key
// (a JSON text inside it is masked as JSON): Held and Others as
// stand-ins.
func (s Secrets) MaskText(v string) string {
	return token.NewMasker(s.Key, s.all()).Text(v)
}

// MaskStrings makes strings of the record (the tool's name, the origin)
// what a supervisor may see: Held and Others as stand-ins. The model names
// the tool, so a tool name can carry a token as well as the input can.
func (s Secrets) MaskStrings(vs ...*string) {
	r := token.NewStringRedactor(s.Key, s.all())
	for _, v := range vs {
		*v = r.Redact(*v)
	}
}

func (s Secrets) all() token.Held {
	if len(s.Others) == 0 {
		return s.Held
	}
	return append(append(token.Held(nil), s.Held...), s.Others...)
}

// Viewer masks requests once more as they are shown (list, show, watch,
// pending, history). Records are masked when queued, with what the asker
// knew then; a view adds what the store holds now for the sessions its
// requests name (a parked question bound to its session later, a token
// captured after the question, a record of an earlier version) and every
// server's current token. It reads one token file per server and session
// shown, never the whole store: a view costs what it shows.
type Viewer struct {
	tokens    *state.Store
	loaded    bool
	servers   []string
	current   []state.Record
	bySession map[string]sessionMask
}

// sessionMask is what a view masks a session's requests with: the tokens,
// and their spellings worked out once for every string field.
type sessionMask struct {
	held    token.Held
	strings token.StringRedactor
}

// Viewer masks requests with the token store of the queue's state dir.
func (s *Store) Viewer() *Viewer { return NewViewer(state.New(s.StateDir)) }

// NewViewer masks with the token store tokens (nil: values under
// DefaultKey only).
func NewViewer(tokens *state.Store) *Viewer {
	return &Viewer{tokens: tokens, bySession: map[string]sessionMask{}}
}

// Requests masks rs in place and returns it.
func (v *Viewer) Requests(rs []Request) []Request {
	for i := range rs {
		rs[i] = v.Request(rs[i])
	}
	return rs
}

// Request is r as a person or a parent agent may read it: every string a
// view shows masked, not the input alone (the model names the tool and
// writes the input; a record of an earlier version may hold anything).
// ID, Session, Kind and Mode are the queue's and the client's, never the
// model's, and views act on them.
func (v *Viewer) Request(r Request) Request {
	m := v.mask(r.Session)
	for _, raw := range []*string{&r.Input, &r.UpdatedInput, &r.InputSchema, &r.AnswerSchema} {
		if *raw != "" {
			*raw = token.MaskedJSON(*raw, DefaultKey, m.held)
		}
	}
	for _, s := range []*string{&r.Tool, &r.Client, &r.Origin, &r.Chat, &r.ToolUseID, &r.Reason, &r.Answer,
		&r.DecidedBy, &r.DeliveredTo, &r.Cwd, &r.Project} {
		*s = m.strings.Redact(*s)
	}
	return r
}

// mask is what a request of session shows as stand-ins: the session's
// tokens and every server's current one, read once per view.
func (v *Viewer) mask(session string) sessionMask {
	if m, ok := v.bySession[session]; ok {
		return m
	}
	held := v.held(session)
	m := sessionMask{held: held, strings: token.NewStringRedactor(DefaultKey, held)}
	v.bySession[session] = m
	return m
}

// held reads the tokens of mask.
func (v *Viewer) held(session string) token.Held {
	if v.tokens == nil {
		return nil
	}
	if !v.loaded {
		v.loaded = true
		v.servers, _ = v.tokens.Servers()
		for _, srv := range v.servers {
			if r, err := v.tokens.Get(srv, ""); err == nil {
				v.current = append(v.current, r)
			}
		}
	}
	var mine []state.Record
	if session != "" {
		for _, srv := range v.servers {
			if r, err := v.tokens.Get(srv, session); err == nil {
				mine = append(mine, r)
			}
		}
	}
	h := newestHeld(mine, nil)
	return append(h, newestHeld(v.current, h)...)
}

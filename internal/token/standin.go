package token

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
)

// MaxHeld is how many tokens are kept per server and session: the latest
// and the ones before it, so that a model can still name an older token by
// its stand-in (a nested workflow hands its parent's token to a child).
const MaxHeld = 64

// standInSuffix ends every stand-in. It holds spaces, so a stand-in never
// looks like a token and is never captured as one.
const standInSuffix = " held by interceptor]"

// standInMark is in every stand-in and in the nameless Placeholder.
const standInMark = "held by interceptor]"

// Handle is the short name of a token in stand-ins: 8 hex digits of its
// SHA-256. It tells tokens apart and reveals nothing usable of them.
func Handle(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:4])
}

// StandIn is what the model reads instead of tok, e.g.
// "[session_token 1a2b3c4d held by interceptor]". A call that carries it gets
// tok back (ResolveStandIns).
func StandIn(key, tok string) string {
	return "[" + key + " " + Handle(tok) + standInSuffix
}

// ParseStandIn reports whether s is a stand-in and returns the handle it
// names. The older, nameless Placeholder parses with handle "", which names
// the latest token.
func ParseStandIn(s string) (handle string, ok bool) {
	s = strings.TrimSpace(s)
	if s == Placeholder {
		return "", true
	}
	body, ok := strings.CutSuffix(s, standInSuffix)
	if !ok || !strings.HasPrefix(body, "[") {
		return "", false
	}
	sp := strings.LastIndexByte(body, ' ')
	if sp < 2 {
		return "", false
	}
	h := strings.ToLower(body[sp+1:])
	if len(h) != 8 {
		return "", false
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", false
	}
	return h, true
}

// Held is the tokens held for one server and session, newest first: Held[0]
// is the latest.
type Held []string

// Lookup returns the token a handle names; "" names the latest.
func (h Held) Lookup(handle string) (string, bool) {
	if len(h) == 0 {
		return "", false
	}
	if handle == "" {
		return h[0], true
	}
	for _, t := range h {
		if Handle(t) == handle {
			return t, true
		}
	}
	return "", false
}

// Push returns the history with tok as the latest: an older copy of tok
// moves up, and the history keeps at most MaxHeld tokens.
func (h Held) Push(tok string) Held {
	out := make(Held, 0, min(len(h)+1, MaxHeld))
	out = append(out, tok)
	for _, t := range h {
		if len(out) == MaxHeld {
			break
		}
		if t != tok && t != "" {
			out = append(out, t)
		}
	}
	return out
}

// UnknownStandInError is a call that names a value by a stand-in that no
// held value has. The call must not go out: the server would see a
// placeholder, or a value of another session.
type UnknownStandInError struct {
	Handle string
}

// Error is written for the model, which made the call.
func (e *UnknownStandInError) Error() string {
	if e.Handle == "" {
		return "interceptor holds no session token for this session yet: call the tool that starts the session first"
	}
	return fmt.Sprintf("interceptor holds no value with handle %s for this session: pass a stand-in shown in this session's tool results, or leave the argument out to use the latest one", e.Handle)
}

// ResolveStandIns replaces every string value of args (any depth) that is a
// stand-in with the token it names. A stand-in that names no held token is
// an *UnknownStandInError and args stay as they were.
func ResolveStandIns(args string, h Held) (string, bool, error) {
	return ResolveNamed(args, []Named{{Held: h}})
}

// ResolveNamed replaces every string value of args (any depth) that is a
// stand-in with the value it names, whichever handle holds it (a model may
// hand a session token to another argument, e.g. parent_session_token). The
// nameless Placeholder names the first set's latest value. A stand-in that
// names no held value is an *UnknownStandInError and args stay as they
// were.
func ResolveNamed(args string, sets []Named) (string, bool, error) {
	// Most calls carry no stand-in: one scan instead of a walk that
	// unescapes every string (a tool input can be megabytes).
	if !strings.Contains(args, standInMark) {
		return args, false, nil
	}
	var unknown *UnknownStandInError
	out, changed := rawjson.MapStrings(args, func(s string, isKey bool) (string, bool) {
		if isKey || unknown != nil || !strings.HasSuffix(strings.TrimSpace(s), "]") {
			return "", false
		}
		handle, ok := ParseStandIn(s)
		if !ok {
			return "", false
		}
		for i, n := range sets {
			if handle == "" && i > 0 {
				break
			}
			if v, ok := n.Held.Lookup(handle); ok {
				return v, true
			}
		}
		unknown = &UnknownStandInError{Handle: handle}
		return "", false
	})
	if unknown != nil {
		return args, false, unknown
	}
	return out, changed, nil
}

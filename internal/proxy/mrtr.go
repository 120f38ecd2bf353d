package proxy

import (
	"bytes"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Revision 2026-07-28 (SEP-2322, multi round-trip requests): a tools/call
// (or prompts/get, resources/read) may be answered with resultType
// "input_required" and an opaque requestState, which the client must echo
// back byte for byte on its retry. The proxy redacts every server message,
// requestState too: a server that binds the session token into its state
// would otherwise show it to the client. So the client gets the state with
// stand-ins, and the proxy puts the server's own bytes back on the retry.
// Clients do not show requestState to the model (the go-sdk and the
// TypeScript SDK retry on their own), but a client that does shows only
// stand-ins.

// modernVersion is the first revision of per-request versions and headers,
// whose results carry resultType.
const modernVersion = "2026-07-28"

// MetaVersion is the _meta key of a request's revision.
const MetaVersion = "io.modelcontextprotocol/protocolVersion"

// IsModernVersion reports whether revision v is 2026-07-28 or later
// (revisions are dates, so they compare as strings).
func IsModernVersion(v string) bool { return v >= modernVersion }

var requestStateKey = []byte(`"requestState"`)

// Bounds on what is remembered: a retry follows its input_required result
// within seconds, so a few dozen are plenty.
const (
	maxRequestStates     = 64
	maxRequestStateBytes = 8 << 20
)

// requestStates maps each requestState the client was shown (with stand-ins
// in place of held tokens) to the server's original, as raw JSON. The zero
// value is ready.
type requestStates struct {
	mu    sync.Mutex
	orig  map[string]string // shown value -> original raw JSON string
	order []string          // shown values, oldest first
	size  int
}

func (s *requestStates) remember(shown, origRaw string) {
	n := len(shown) + len(origRaw)
	if n > maxRequestStateBytes {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.orig == nil {
		s.orig = map[string]string{}
	}
	if old, ok := s.orig[shown]; ok {
		s.size -= len(shown) + len(old)
		s.orig[shown] = origRaw
		s.size += n
		return
	}
	for len(s.order) > 0 && (len(s.order) >= maxRequestStates || s.size+n > maxRequestStateBytes) {
		first := s.order[0]
		s.order = s.order[1:]
		s.size -= len(first) + len(s.orig[first])
		delete(s.orig, first)
	}
	s.orig[shown] = origRaw
	s.order = append(s.order, shown)
	s.size += n
}

func (s *requestStates) lookup(shown string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orig[shown]
	return o, ok
}

// serverStep is serverMessage, noting the requestState of a result whose
// redaction changed it.
func (r *Rewriter) serverStep(msg []byte) step {
	st := r.serverMessage(msg)
	if st.out != nil && bytes.Contains(msg, requestStateKey) {
		orig := gjson.GetBytes(msg, "result.requestState")
		shown := gjson.GetBytes(st.out, "result.requestState")
		if orig.Type == gjson.String && shown.Type == gjson.String && shown.Raw != orig.Raw {
			r.states.remember(shown.Str, orig.Raw)
		}
	}
	return st
}

// clientStep is clientMessage, on a message whose params.requestState was
// shown with stand-ins given back the server's own bytes first. The client
// may respell the string (escapes): it is matched by its value.
func (r *Rewriter) clientStep(msg []byte) step {
	if !bytes.Contains(msg, requestStateKey) {
		return r.clientMessage(msg)
	}
	rs := gjson.GetBytes(msg, "params.requestState")
	if rs.Type != gjson.String {
		return r.clientMessage(msg)
	}
	orig, ok := r.states.lookup(rs.Str)
	if !ok {
		return r.clientMessage(msg)
	}
	restored, ok := splice(msg, []edit{{off: rs.Index, raw: rs.Raw, repl: []byte(orig)}})
	if !ok {
		return r.clientMessage(msg)
	}
	st := r.clientMessage(restored)
	if st.out == nil && !st.drop {
		st.out = restored
	}
	return st
}

// isModern reports whether the request req (raw JSON) names revision
// 2026-07-28 or later in its _meta (revisions are dates: they compare as
// strings).
func isModern(req []byte) bool {
	v := gjson.GetBytes(req, "params._meta."+gjson.Escape(MetaVersion))
	return v.Type == gjson.String && IsModernVersion(v.Str)
}

// completed is reply, a result the proxy writes itself in answer to req,
// with resultType "complete" when req is of revision 2026-07-28 or later
// (which requires it of every result).
func completed(req, reply []byte) []byte {
	if !isModern(req) {
		return reply
	}
	out, err := sjson.SetBytes(reply, "result.resultType", "complete")
	if err != nil {
		return reply
	}
	return out
}

package proxy

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Revision 2026-07-28 (SEP-2322, multi round-trip requests): a tools/call
// (or prompts/get, resources/read) may be answered with resultType
// "input_required" and an opaque requestState, which the client must echo
// back byte for byte on its retry. A server may bind the session token into
// its state, in the clear or encoded (base64, hex, encrypted with a weak
// key): redacting the spellings we recognise would leave the others. So the
// client never gets the server's state at all: it gets a reference the
// proxy mints (requestStateRef + 128 random bits), and the proxy puts the
// server's own bytes back on the retry. The client only ever echoes the
// state (the go-sdk and the TypeScript SDK retry on their own), so a
// reference serves it as well; a client that shows the state to a model
// shows nothing of the server's. A retry naming a reference the proxy no
// longer holds (evicted, or minted by an earlier proxy process) is answered
// with an error, never sent on.

// modernVersion is the first revision of per-request versions and headers,
// whose results carry resultType.
const modernVersion = "2026-07-28"

// MetaVersion is the _meta key of a request's revision.
const MetaVersion = "io.modelcontextprotocol/protocolVersion"

// IsModernVersion reports whether revision v is 2026-07-28 or later
// (revisions are dates, so they compare as strings).
func IsModernVersion(v string) bool { return v >= modernVersion }

var requestStateKey = []byte(`"requestState"`)

// requestStateRef starts every reference the client is given in place of a
// server's requestState.
const requestStateRef = "interceptor-request-state:"

// Bounds on what is remembered: a retry follows its input_required result
// within seconds, so a few dozen are plenty. The newest state is kept
// whatever its size (a message is bounded by MaxMessage): its retry must
// work.
const (
	maxRequestStates     = 64
	maxRequestStateBytes = 8 << 20
)

// requestStates maps each reference the client was given to the server's
// requestState, as raw JSON. The zero value is ready.
type requestStates struct {
	mu    sync.Mutex
	orig  map[string]string // reference -> original raw JSON string
	order []string          // references, oldest first
	size  int
}

// mint remembers origRaw and returns a new reference to it.
func (s *requestStates) mint(origRaw string) string {
	var b [16]byte
	rand.Read(b[:])
	ref := requestStateRef + hex.EncodeToString(b[:])
	s.remember(ref, origRaw)
	return ref
}

func (s *requestStates) remember(ref, origRaw string) {
	n := len(ref) + len(origRaw)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.orig == nil {
		s.orig = map[string]string{}
	}
	for len(s.order) > 0 && (len(s.order) >= maxRequestStates || s.size+n > maxRequestStateBytes) {
		first := s.order[0]
		s.order = s.order[1:]
		s.size -= len(first) + len(s.orig[first])
		delete(s.orig, first)
	}
	s.orig[ref] = origRaw
	s.order = append(s.order, ref)
	s.size += n
}

func (s *requestStates) lookup(ref string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orig[ref]
	return o, ok
}

// serverStep is serverMessage, with a response's requestState (a string)
// replaced by a reference to it.
func (r *Rewriter) serverStep(msg []byte) step {
	st := r.serverMessage(msg)
	if !bytes.Contains(msg, requestStateKey) {
		return st
	}
	orig := gjson.GetBytes(msg, "result.requestState")
	if orig.Type != gjson.String || gjson.GetBytes(msg, "method").Exists() {
		return st
	}
	out := msg
	if st.out != nil {
		out = st.out
	}
	shown := gjson.GetBytes(out, "result.requestState")
	if shown.Type != gjson.String {
		return st
	}
	ref := r.states.mint(orig.Raw)
	if edited, ok := splice(out, []edit{{off: shown.Index, raw: shown.Raw, repl: rawjson.AppendString(nil, ref)}}); ok {
		st.out = edited
		return st
	}
	// Never a guess, and never the server's state: the response is
	// refused as one that cannot be relayed.
	var h rawjson.Head
	h.Write(msg)
	return step{out: r.refuse(true, h, "its requestState could not be replaced").Msg}
}

// clientStep is clientMessage, on a message whose params.requestState is a
// reference the proxy handed out given back the server's own bytes first.
// The client may respell the string (escapes): it is matched by its value.
// A reference the proxy no longer holds is answered with an error.
func (r *Rewriter) clientStep(msg []byte) step {
	if !bytes.Contains(msg, requestStateKey) {
		return r.clientMessage(msg)
	}
	rs := gjson.GetBytes(msg, "params.requestState")
	if rs.Type != gjson.String || !strings.HasPrefix(rs.Str, requestStateRef) {
		return r.clientMessage(msg) // not ours: the server judges it
	}
	orig, ok := r.states.lookup(rs.Str)
	if !ok {
		return r.forgottenState(msg)
	}
	restored, ok := splice(msg, []edit{{off: rs.Index, raw: rs.Raw, repl: []byte(orig)}})
	if !ok {
		return r.forgottenState(msg)
	}
	st := r.clientMessage(restored)
	if st.out == nil && !st.drop {
		st.out = restored
	}
	return st
}

// forgottenState answers a retry whose requestState reference the proxy
// does not hold: the server would get a string it never wrote.
func (r *Rewriter) forgottenState(msg []byte) step {
	method := gjson.GetBytes(msg, "method").Str
	r.logf("a %.64q retry names a requestState this proxy does not hold (the last %d are kept); answered with an error", method, maxRequestStates)
	id := gjson.GetBytes(msg, "id")
	if id.Type != gjson.String && id.Type != gjson.Number {
		return step{drop: true}
	}
	why := "interceptor proxy: this retry's requestState is no longer held by the proxy (it keeps the last 64), so it was not sent to the server; make the request again from the start"
	reply := ErrorResponse(id.Raw, codeInvalidRequest, why)
	if method == "tools/call" {
		reply = completed(msg, toolError(id.Raw, why))
	}
	return step{drop: true, back: append(reply, '\n')}
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

package proxy

import (
	"bytes"
	"encoding/binary"
	"sort"
	"unsafe"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// This file shows every value held as its stand-in in what the server
// sends the client (redact, candidates) and edits messages in place
// (splice).

// secretValues are the values the model reads only as stand-ins.
func (r *Rewriter) secretValues() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.secrets))
	for i, s := range r.secrets {
		out[i] = s.value
	}
	return out
}

// redact replaces every value the model reads only as a stand-in, in any
// spelling (JSON-escaped, "\\/" for "/", inside a text block that is itself
// JSON), with its stand-in: the model reads which value it is, never the
// value. validated says msg is known to be valid JSON; invalid JSON is
// redacted as text.
func (r *Rewriter) redact(msg []byte, validated bool) ([]byte, bool) {
	hidden := r.candidates(msg)
	if len(hidden) == 0 {
		return nil, false
	}
	var out string
	var changed bool
	text := unsafe.String(unsafe.SliceData(msg), len(msg)) // no copy: msg is not modified meanwhile
	if validated || gjson.ValidBytes(msg) {
		out, changed = token.RedactNamed(text, hidden)
	} else {
		out, changed = token.RedactNamedString(text, hidden)
	}
	if !changed {
		return nil, false
	}
	// No copy: out is a fresh string nobody else holds, and a relayed
	// message is written out, never written to.
	return unsafe.Slice(unsafe.StringData(out), len(out)), true
}

// candidates returns the secrets msg may hold, in any spelling
// token.RedactNamed replaces: as is, JSON-escaped (also "/" as "\\/"),
// percent-encoded, in JSON text inside a JSON string. All of them keep the
// value's runs of letters, digits and "-._~" as they are, unless msg uses
// \u escapes, which can spell any character: then every secret is a
// candidate. Looking for 64 values' spellings in every string of every
// message costs far more than one pass over the message that notes every
// 8-byte window in a bitmap, then one look-up per value (of the last 8
// bytes of its run; a false hit only costs a redaction pass that finds
// nothing).
func (r *Rewriter) candidates(msg []byte) []token.Named {
	r.mu.Lock()
	secrets := r.secrets
	r.mu.Unlock()
	if len(secrets) == 0 {
		return nil
	}
	all := len(secrets) <= 2 || bytes.Contains(msg, []byte(`\u`))
	var windows [1 << 10]uint64 // 65536 bits
	if !all {
		for i := 0; i+8 <= len(msg); i++ {
			h := windowHash(msg[i:])
			windows[h>>6] |= 1 << (h & 63)
		}
	}
	var out []token.Named
	for _, s := range secrets {
		if run := s.run; !all && len(run) >= 8 {
			if h := windowHash([]byte(run[len(run)-8:])); windows[h>>6]&(1<<(h&63)) == 0 {
				continue
			}
		}
		out = append(out, token.Named{Name: s.name, Held: token.Held{s.value}})
	}
	return out
}

// windowHash hashes the 8 bytes at the start of b to 16 bits.
func windowHash(b []byte) uint64 {
	return binary.LittleEndian.Uint64(b) * 0x9E3779B97F4A7C15 >> 48
}

// longestRun returns the end (at most 16 bytes) of the longest run of
// unreserved bytes of tok: any part of the run is as sound a test, and
// tokens that share a header (JWTs, HMACs of one server) differ at the end.
func longestRun(tok string) string {
	run, start := "", 0
	for j := 0; j <= len(tok); j++ {
		if j < len(tok) && isUnreserved(tok[j]) {
			continue
		}
		if j-start > len(run) {
			run = tok[start:j]
		}
		start = j + 1
	}
	return run[max(0, len(run)-16):]
}

// isUnreserved reports whether c is kept as it is by JSON escaping and by
// percent-encoding (RFC 3986's unreserved set).
func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// edit replaces raw, found at off in a message, by repl.
type edit struct {
	off  int
	raw  string
	repl []byte
}

// splice applies edits to msg (it does not modify msg). It reports false
// when there is nothing to do or when an edit's offset does not hold its
// raw text (the message is then left alone: never a guess).
func splice(msg []byte, edits []edit) ([]byte, bool) {
	if len(edits) == 0 {
		return nil, false
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].off < edits[j].off })
	size := len(msg)
	prev := 0
	for _, e := range edits {
		if e.off < prev || e.off+len(e.raw) > len(msg) || string(msg[e.off:e.off+len(e.raw)]) != e.raw {
			return nil, false
		}
		prev = e.off + len(e.raw)
		size += len(e.repl) - len(e.raw)
	}
	out := make([]byte, 0, size)
	prev = 0
	for _, e := range edits {
		out = append(out, msg[prev:e.off]...)
		out = append(out, e.repl...)
		prev = e.off + len(e.raw)
	}
	return append(out, msg[prev:]...), true
}

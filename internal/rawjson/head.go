package rawjson

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// MaxDepth bounds the nesting of any JSON message interceptor parses. gjson
// (like encoding/json) recurses once per level: a line nested millions deep
// would overflow the stack and kill the process, which recover cannot
// catch. No real MCP message nests more than a few dozen levels.
const MaxDepth = 512

// Head reads what a JSON-RPC message says about itself at its top level,
// its "id" and "method", and how deep it nests, from a message fed to Write
// in pieces of any size. It keeps nothing else, never recurses and never
// fails: it is for the messages too large or too deep to parse that must
// still be answered (a request gets an error reply, a response an error in
// its place). On invalid JSON it reads what it can.
type Head struct {
	// ID is the raw JSON of the top-level "id" when it is a string or a
	// number of at most maxHeadValue bytes, else "".
	ID string
	// Method is the top-level "method" when it is a string, unescaped.
	Method    string
	HasMethod bool
	// Object says the message is a JSON object (not a batch or a scalar).
	Object bool
	// Depth is the deepest nesting seen (1 for a flat object).
	Depth int
	// Size is the number of bytes written.
	Size int64

	depth   int
	inStr   bool
	esc     bool
	phase   headPhase
	key     []byte // the current top-level key, raw, while it is read
	keyLong bool
	seen    uint8 // which fields were already taken (the first counts)
	field   uint8 // the field whose value is being read
	val     []byte
	valLong bool
}

type headPhase uint8

const (
	wantKey   headPhase = iota // at depth 1: a key (or '}') comes next
	inKey                      // reading the key string
	wantColon                  // the key is read
	wantValue                  // after ':'
	inValue                    // reading a scalar value
	skipValue                  // inside a value not kept
)

const (
	fieldID     uint8 = 1
	fieldMethod uint8 = 2
	// maxHeadValue bounds a kept id or method (and a key compared).
	maxHeadValue = 1 << 10
)

// Write scans p as the next bytes of the message. It never returns an
// error.
func (h *Head) Write(p []byte) (int, error) {
	h.Size += int64(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if h.inStr {
			// Skip to the next quote or backslash at once: long strings
			// are most of a large message.
			if !h.esc && (h.depth != 1 || h.phase == inValue && h.field == 0) {
				j := bytes.IndexAny(p[i:], `"\`)
				if j < 0 {
					break
				}
				i += j
				c = p[i]
			}
			h.keep(c)
			switch {
			case h.esc:
				h.esc = false
			case c == '\\':
				h.esc = true
			case c == '"':
				h.inStr = false
				h.stringEnd()
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			if h.depth == 1 && h.phase == inValue {
				h.valueEnd()
			}
		case '"':
			h.inStr = true
			if h.depth == 1 {
				switch h.phase {
				case wantKey:
					h.phase, h.key, h.keyLong = inKey, h.key[:0], false
				case wantValue:
					h.phase = inValue
				}
			}
			h.keep(c)
		case '{', '[':
			if h.depth == 0 {
				h.Object = c == '{'
				h.phase = wantKey
			} else if h.depth == 1 && h.phase == wantValue {
				// An object or array: not kept, but it is the field's
				// first value (gjson's Get would return it).
				h.seen |= h.field
				h.phase, h.field = skipValue, 0
			}
			h.depth++
			h.Depth = max(h.Depth, h.depth)
		case '}', ']':
			if h.depth == 1 && h.phase == inValue {
				h.valueEnd()
			}
			h.depth--
			if h.depth == 1 && h.phase == skipValue {
				h.phase = wantKey
			}
		case ':':
			if h.depth == 1 && h.phase == wantColon {
				h.phase = wantValue
				h.val, h.valLong = h.val[:0], false
			}
		case ',':
			if h.depth == 1 {
				if h.phase == inValue {
					h.valueEnd()
				}
				h.phase = wantKey
			}
		default:
			if h.depth == 1 && h.phase == wantValue {
				h.phase = inValue
			}
			h.keep(c)
		}
	}
	return len(p), nil
}

// keep adds c to the key or value being read at depth 1.
func (h *Head) keep(c byte) {
	if h.depth != 1 {
		return
	}
	switch h.phase {
	case inKey:
		if len(h.key) < maxHeadValue {
			h.key = append(h.key, c)
		} else {
			h.keyLong = true
		}
	case inValue:
		if h.field != 0 {
			if len(h.val) < maxHeadValue {
				h.val = append(h.val, c)
			} else {
				h.valLong = true
			}
		}
	}
}

// stringEnd is called at the closing quote of a string.
func (h *Head) stringEnd() {
	if h.depth != 1 {
		return
	}
	switch h.phase {
	case inKey:
		h.phase, h.field = wantColon, 0
		if h.keyLong {
			return
		}
		k := string(h.key[1 : len(h.key)-1])
		if bytes.IndexByte(h.key, '\\') >= 0 {
			k = gjson.ParseBytes(h.key).Str
		}
		switch {
		case k == "id" && h.seen&fieldID == 0:
			h.field = fieldID
		case k == "method" && h.seen&fieldMethod == 0:
			h.field = fieldMethod
		}
	case inValue:
		h.valueEnd()
	}
}

// valueEnd is called where a scalar value at depth 1 ends.
func (h *Head) valueEnd() {
	h.phase = wantKey
	f := h.field
	h.field = 0
	if f == 0 {
		return
	}
	h.seen |= f
	if h.valLong {
		return
	}
	v := gjson.ParseBytes(h.val)
	if v.Raw != string(h.val) {
		return // not one whole value
	}
	switch {
	case f == fieldID && (v.Type == gjson.String || v.Type == gjson.Number):
		h.ID = v.Raw
	case f == fieldMethod && v.Type == gjson.String:
		h.Method, h.HasMethod = v.Str, true
	}
}

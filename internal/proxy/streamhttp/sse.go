package streamhttp

import (
	"bytes"
	"io"
	"time"

	"github.com/interceptor-dev/interceptor/internal/proxy"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
)

// sseCursor is where an event stream stands, for a reconnection to
// resume it: the last event id it gave (the stream's, kept from one event
// to the next as the SSE spec says) and the reconnection time its last
// retry field asked for (0: none).
type sseCursor struct {
	lastID string
	retry  time.Duration
}

// readSSE calls onEvent with the data of each event of an event stream
// whose type is message (or unnamed), until the stream ends, and keeps cur
// (which may be nil) up to date. An event whose data is blank (the priming
// event a resumable stream starts with: an id, nothing to deliver) is not
// passed on. The data of an event over the message size limit is not kept:
// onEvent gets its head instead.
func readSSE(r io.Reader, max int, cur *sseCursor, onEvent func(data []byte, over *rawjson.Head)) {
	if max <= 0 {
		max = proxy.DefaultMaxMessage
	}
	if cur == nil {
		cur = new(sseCursor)
	}
	lr := proxy.NewLineReader(r, max)
	var data []byte
	var over *rawjson.Head
	var id, event string
	idSet, hasData := false, false
	for {
		line, overLine, err := lr.Next()
		l, _ := proxy.SplitEnding(line)
		switch {
		case overLine != nil:
			// One line over the limit: it is the event's data (no other
			// field is that long); what came before it is lost.
			over, hasData = overLine, true
		case len(l) == 0 && len(line) > 0: // blank line: dispatch
			if idSet {
				cur.lastID = id
			}
			if hasData && (event == "" || event == "message") && (over != nil || len(bytes.TrimSpace(data)) > 0) {
				onEvent(data, over)
			}
			data, over, event, hasData = nil, nil, "", false
		case len(l) > 0 && l[0] == ':': // comment
		case len(l) > 0:
			field, value, _ := bytes.Cut(l, []byte{':'})
			value = bytes.TrimPrefix(value, []byte{' '})
			switch string(field) {
			case "data":
				if hasData && over == nil && len(data)+1+len(value) > max {
					over = new(rawjson.Head)
					over.Write(data)
					data = nil
				}
				switch {
				case over != nil:
					over.Write([]byte{'\n'})
					over.Write(value)
				case hasData:
					data = append(append(data, '\n'), value...)
				default:
					data = append(data, value...)
				}
				hasData = true
			case "event":
				event = string(value)
			case "id":
				// An id holding NUL is ignored (the SSE spec).
				if bytes.IndexByte(value, 0) < 0 {
					id, idSet = string(value), true
				}
			case "retry":
				if ms, ok := digits(value); ok {
					cur.retry = time.Duration(ms) * time.Millisecond
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// digits is value as a number of milliseconds when it is ASCII digits only
// (the SSE spec ignores a retry field that is anything else), bounded.
func digits(value []byte) (int64, bool) {
	if len(value) == 0 || len(value) > 9 {
		return 0, false
	}
	var n int64
	for _, c := range value {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

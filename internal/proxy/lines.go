package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
)

// DefaultMaxMessage is the largest message relayed, in bytes, unless
// Config.MaxMessage says otherwise. A longer line is not kept in memory:
// it is read through and answered (see Rewriter.Oversized).
const DefaultMaxMessage = 32 << 20

// lineReader reads newline-delimited messages of up to max bytes.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxMessage
	}
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line with its line ending. The slice is valid
// until the next call. At the end of input it returns the last bytes (a
// line without an ending, if any) and io.EOF, or only io.EOF. A line longer
// than max is read to its end without being kept: next returns instead
// what its head says (its id and method), for an answer.
func (l *lineReader) next() ([]byte, *rawjson.Head, error) {
	line, err := l.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(line) > l.max {
			return l.over(line, err)
		}
		return line, nil, err
	}
	l.buf = append(l.buf[:0], line...)
	for {
		if len(l.buf) > l.max {
			buf := l.buf
			l.buf = nil // do not keep a huge buffer for the rest of the session
			return l.over(buf, err)
		}
		line, err = l.br.ReadSlice('\n')
		l.buf = append(l.buf, line...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			if cap(l.buf) > 16<<20 {
				// Do not keep a huge buffer for the rest of the session.
				out := l.buf
				l.buf = nil
				return out, nil, err
			}
			if len(l.buf) > l.max {
				return l.over(l.buf, err)
			}
			return l.buf, nil, err
		}
	}
}

// over reads the rest of an overlong line, of which start was read, into
// a Head.
func (l *lineReader) over(start []byte, err error) ([]byte, *rawjson.Head, error) {
	h := new(rawjson.Head)
	h.Write(start)
	for errors.Is(err, bufio.ErrBufferFull) {
		var line []byte
		line, err = l.br.ReadSlice('\n')
		h.Write(line)
	}
	return nil, h, err
}

// more reports whether a whole next line is already buffered, so that a
// writer can hold its output back until it has relayed it too: messages
// that arrive together leave together, in fewer writes, and a lone message
// is never held back.
func (l *lineReader) more() bool {
	n := l.br.Buffered()
	if n == 0 {
		return false
	}
	b, _ := l.br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// splitEnding splits a line into the message and its line ending.
func splitEnding(line []byte) (msg, end []byte) {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	return line[:n], line[n:]
}

// outbox is one side's output. Both relay directions write to it: one
// relays messages, the other answers messages it did not relay. Each
// message is written whole under the lock.
type outbox struct {
	mu sync.Mutex
	bw *bufio.Writer
}

func newOutbox(w io.Writer) *outbox { return &outbox{bw: bufio.NewWriterSize(w, 64<<10)} }

// relay writes what becomes of line (out, from a Rewriter) and flushes
// unless more is coming right away. An untouched line is written exactly as
// read.
func (o *outbox) relay(line []byte, out Out, more bool) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	var err error
	switch msg, end := splitEnding(line); {
	case out.Drop:
	case len(out.Msg) == len(msg) && (len(msg) == 0 || &out.Msg[0] == &msg[0]):
		_, err = o.bw.Write(line)
	default:
		if line == nil {
			end = []byte{'\n'} // in place of a line not kept
		}
		o.bw.Write(out.Msg)
		_, err = o.bw.Write(end)
	}
	if err == nil && !more {
		err = o.bw.Flush()
	}
	return err
}

// answer writes messages (lines) that answer what this side sent, at once.
func (o *outbox) answer(lines []byte) {
	if len(lines) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.bw.Write(lines); err == nil {
		o.bw.Flush()
	}
}

func (o *outbox) flush() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bw.Flush()
}

// LineReader reads newline-delimited messages (for the HTTP side); see
// lineReader.next.
type LineReader struct{ lr *lineReader }

// NewLineReader returns a LineReader reading r, with lines of at most max
// bytes (0: DefaultMaxMessage).
func NewLineReader(r io.Reader, max int) LineReader { return LineReader{newLineReader(r, max)} }

// Next returns the next line with its ending, valid until the next call,
// or for a line over the limit its head; io.EOF at the end (with the last
// bytes, if any).
func (l LineReader) Next() ([]byte, *rawjson.Head, error) { return l.lr.next() }

// SplitEnding splits a line into the message and its line ending.
func SplitEnding(line []byte) (msg, end []byte) { return splitEnding(line) }

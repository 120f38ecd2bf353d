package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader reads newline-delimited messages of any length.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line with its line ending. The slice is valid
// until the next call. At the end of input it returns the last bytes (a
// line without an ending, if any) and io.EOF, or only io.EOF.
func (l *lineReader) next() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	l.buf = append(l.buf[:0], line...)
	for {
		line, err = l.br.ReadSlice('\n')
		l.buf = append(l.buf, line...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			if cap(l.buf) > 16<<20 {
				// Do not keep a huge buffer for the rest of the session.
				out := l.buf
				l.buf = nil
				return out, err
			}
			return l.buf, err
		}
	}
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

// relayLine rewrites one line with fn and writes it to w in one write. An
// untouched line is written exactly as read.
func relayLine(w io.Writer, line []byte, fn func([]byte) []byte, scratch *[]byte) error {
	msg, end := splitEnding(line)
	out := fn(msg)
	if len(out) == len(msg) && (len(msg) == 0 || &out[0] == &msg[0]) {
		_, err := w.Write(line)
		return err
	}
	b := append(append((*scratch)[:0], out...), end...)
	if cap(b) <= 1<<20 {
		*scratch = b
	}
	_, err := w.Write(b)
	return err
}

// LineReader reads newline-delimited messages of any length (for the HTTP
// side).
type LineReader struct{ lr *lineReader }

// NewLineReader returns a LineReader reading r.
func NewLineReader(r io.Reader) LineReader { return LineReader{newLineReader(r)} }

// Next returns the next line with its ending, valid until the next call;
// io.EOF at the end (with the last bytes, if any).
func (l LineReader) Next() ([]byte, error) { return l.lr.next() }

// SplitEnding splits a line into the message and its line ending.
func SplitEnding(line []byte) (msg, end []byte) { return splitEnding(line) }

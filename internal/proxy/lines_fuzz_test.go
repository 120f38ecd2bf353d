package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
)

// FuzzLineReader: the lines lineReader returns, and the overlong lines it
// only reads through, are the input cut at its newlines, in order, nothing
// lost or added; a line is kept only when it is at most max bytes (newline
// included), and an overlong line's head is what one Write of the whole
// line gives. A 16-byte buffer and one-byte reads make the
// buffer-full paths run on small inputs.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"id\":1,\"method\":\"m\"}\n{\"id\":2}\r\n"), uint8(64), false)
	f.Add([]byte("{\"id\":\"big\",\"method\":\"tools/call\",\"params\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}\nshort\n"), uint8(20), true)
	f.Add([]byte("no ending"), uint8(4), false)
	f.Add([]byte("\n\n\r\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]\n"), uint8(16), true)
	f.Add([]byte(""), uint8(0), false)
	f.Fuzz(func(t *testing.T, in []byte, max uint8, oneByte bool) {
		limit := int(max) + 1
		var r io.Reader = bytes.NewReader(in)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		lr := &lineReader{br: bufio.NewReaderSize(r, 16), max: limit}
		pos := 0
		for n := 0; ; n++ {
			if n > len(in)+1 {
				t.Fatalf("more results than the input has lines: %q", in)
			}
			line, over, err := lr.next()
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("next: %v", err)
			}
			seg := len(line)
			if over != nil {
				if line != nil {
					t.Fatalf("next returned both a line and a head")
				}
				seg = int(over.Size)
			}
			if pos+seg > len(in) {
				t.Fatalf("result %d runs past the input (%d+%d > %d): %q", n, pos, seg, len(in), in)
			}
			want := in[pos : pos+seg]
			if i := bytes.IndexByte(want, '\n'); i >= 0 && i != len(want)-1 {
				t.Fatalf("result %d spans a newline: %q", n, want)
			}
			if err == nil && (seg == 0 || want[seg-1] != '\n') {
				t.Fatalf("result %d (no error) does not end at a newline: %q", n, want)
			}
			if over == nil {
				if !bytes.Equal(line, want) || len(line) > limit {
					t.Fatalf("line %d = %q, want %q (max %d)", n, line, want, limit)
				}
			} else {
				if seg <= limit {
					t.Fatalf("a %d-byte line refused with max %d: %q", seg, limit, want)
				}
				var whole rawjson.Head
				whole.Write(want)
				if over.ID != whole.ID || over.Method != whole.Method || over.HasMethod != whole.HasMethod || over.Object != whole.Object || over.Depth != whole.Depth {
					t.Fatalf("head of %q read in pieces %+v, whole %+v", want, *over, whole)
				}
			}
			pos += seg
			if err != nil {
				break
			}
		}
		if pos != len(in) {
			t.Fatalf("read %d of %d bytes: %q", pos, len(in), in)
		}
	})
}

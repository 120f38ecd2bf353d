// Package termio is what the commands need of a terminal: whether a person
// is at the other end of a stream, a secret read without echo, a line, and
// raw mode for approvals watch's one-key decisions. It links only
// golang.org/x/term, so the hook harness may use it.
package termio

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// OnTerminal reports whether r is a terminal: a person, not a client, is
// at the other end.
func OnTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// ReadSecretLine reads one line from r without echoing it when r is a
// terminal (after prompt on w), else the first line of r.
func ReadSecretLine(r io.Reader, w io.Writer, prompt string) (string, error) {
	if f, ok := r.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		io.WriteString(w, prompt)
		b, err := term.ReadPassword(int(f.Fd()))
		io.WriteString(w, "\n")
		return string(b), err
	}
	return ReadLine(r)
}

// ReadLine reads the first line of r, without its line ending.
func ReadLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

// Raw puts in in raw mode when it is a terminal, so that one keypress
// arrives as one byte, and returns the writer to print to (out, or out
// writing "\r\n" for "\n": raw mode no longer does) and what restores the
// terminal. Raw mode also stops the terminal from turning Ctrl-C into
// SIGINT: a caller reads it as a key (3). Not a terminal: out and a no-op.
func Raw(in io.Reader, out io.Writer) (io.Writer, func()) {
	file, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(file.Fd())) {
		return out, func() {}
	}
	old, err := term.MakeRaw(int(file.Fd()))
	if err != nil {
		return out, func() {}
	}
	return crlf{out}, func() { term.Restore(int(file.Fd()), old) }
}

// crlf writes "\r\n" for every "\n", for a terminal in raw mode.
type crlf struct{ w io.Writer }

func (c crlf) Write(p []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

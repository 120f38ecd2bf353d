package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// onTerminal reports whether r is a terminal: a person, not a client, is
// at the other end.
func onTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// readSecretLine reads one line from r without echoing it when r is a
// terminal (after prompt on w), else the first line of r.
func readSecretLine(r io.Reader, w io.Writer, prompt string) (string, error) {
	if f, ok := r.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		io.WriteString(w, prompt)
		b, err := term.ReadPassword(int(f.Fd()))
		io.WriteString(w, "\n")
		return string(b), err
	}
	return readLine(r)
}

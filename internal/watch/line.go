package watch

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// askInput prints a human tool's question in watch and starts reading its
// answer.
func askInput(out io.Writer, r approvals.Request, lines []string) *lineInput {
	fmt.Fprintf(out, "%s %s asks (%s, session %s), with:\n", r.ID, approvals.Visible(r.Tool), approvals.Visible(r.Client), approvals.Visible(r.Session))
	for _, l := range lines {
		fmt.Fprintf(out, "    %s\n", l)
	}
	if hint := approvals.AnswerHint(r.AnswerSchema); hint != "" {
		fmt.Fprintf(out, "  the answer: %s\n", hint)
	}
	fmt.Fprint(out, answerPrompt)
	return &lineInput{out: out}
}

const answerPrompt = "  type the answer, Enter sends it (an empty line skips, Ctrl-C quits): "

// lineInput is watch's line editor, for an answer or a deny's reason: the
// keys are echoed (raw mode does not), made visible; backspace takes back a
// character.
type lineInput struct {
	out  io.Writer
	line []byte
}

// key takes one key: done reports Enter, with the line typed (trimmed) as
// text; quit reports Ctrl-C or Ctrl-D, which end watch without sending it.
func (l *lineInput) key(k byte) (text string, done, quit bool) {
	switch k {
	case 3, 4: // Ctrl-C, Ctrl-D
		fmt.Fprintln(l.out)
		return "", false, true
	case '\r', '\n':
		fmt.Fprintln(l.out)
		return strings.TrimSpace(string(l.line)), true, false
	case 127, 8: // backspace
		if n := len(l.line); n > 0 {
			_, size := utf8.DecodeLastRune(l.line)
			l.line = l.line[:n-size]
			fmt.Fprint(l.out, "\b \b")
		}
		return "", false, false
	}
	if k < 0x20 {
		return "", false, false // other control keys are not part of a line
	}
	l.line = append(l.line, k)
	// Echo a character once it is whole (a multi-byte one arrives a byte
	// at a key), visibly: a bidi override typed is shown escaped.
	if r, size := utf8.DecodeLastRune(l.line); r != utf8.RuneError || size > 1 {
		fmt.Fprint(l.out, approvals.Visible(string(l.line[len(l.line)-size:])))
	}
	return "", false, false
}

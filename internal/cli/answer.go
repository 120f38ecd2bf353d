package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/spf13/cobra"
)

// maxAnswer bounds an answer read from stdin.
const maxAnswer = 1 << 20

func newApprovalsAnswerCmd(io *IO) *cobra.Command {
	f := &approvalsFlags{}
	cmd := &cobra.Command{
		Use:   "answer ID [TEXT]",
		Short: "Answer a human tool's question (TEXT, or stdin when not given)",
		Long: `Answers a pending question a human tool asked (docs/human-tools.md). A held
call returns the answer to the model at once; a parked call's answer is
delivered with the session's next prompt. Without TEXT the answer is read
from stdin (all of it, trailing newlines dropped). A question already
answered, expired, or whose session ended is reported and left unchanged:
exit 1.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(_ *cobra.Command, args []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			answer := ""
			if len(args) == 2 {
				answer = args[1]
			} else {
				b, err := readAll(io.In, maxAnswer)
				if err != nil {
					return err
				}
				answer = strings.TrimRight(string(b), "\r\n")
			}
			if strings.TrimSpace(answer) == "" {
				return errors.New("the answer is empty")
			}
			r, err := q.AnswerInput(args[0], answer, approvals.Decider("cli"))
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "%s %s\n", r.ID, r.Status)
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

func readAll(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer from stdin: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("the answer on stdin is longer than %d KiB", limit>>10)
	}
	return b, nil
}

// askInput prints a human tool's question in watch and starts reading its
// answer.
func askInput(out io.Writer, r approvals.Request, lines []string) *lineInput {
	fmt.Fprintf(out, "%s %s asks (%s, session %s), with:\n", r.ID, approvals.Visible(r.Tool), approvals.Visible(r.Client), approvals.Visible(r.Session))
	for _, l := range lines {
		fmt.Fprintf(out, "    %s\n", l)
	}
	fmt.Fprint(out, "  type the answer, Enter sends it (an empty line skips, Ctrl-C quits): ")
	return &lineInput{out: out}
}

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

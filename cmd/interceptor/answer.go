package main

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

func newApprovalsAnswerCmd(io *streams) *cobra.Command {
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
func askInput(out io.Writer, r approvals.Request, lines []string) *answerLine {
	fmt.Fprintf(out, "%s %s asks (%s, session %s), with:\n", r.ID, approvals.Visible(r.Tool), approvals.Visible(r.Client), approvals.Visible(r.Session))
	for _, l := range lines {
		fmt.Fprintf(out, "    %s\n", l)
	}
	fmt.Fprint(out, "  type the answer, Enter sends it (an empty line skips, Ctrl-C quits): ")
	return &answerLine{out: out}
}

// answerLine is watch's line editor for an answer: the keys are echoed
// (raw mode does not), made visible; backspace takes back a character.
type answerLine struct {
	out     io.Writer
	line    []byte
	skipped bool // an empty line: watch asks the next question
}

// key takes one key of the answer to request id; done reports that the
// question is settled for watch (answered, skipped or gone).
func (a *answerLine) key(q *approvals.Store, id string, k byte) (done bool, err error) {
	switch k {
	case 3, 4: // Ctrl-C, Ctrl-D: quit without answering
		fmt.Fprintln(a.out)
		return false, errQuit
	case '\r', '\n':
		fmt.Fprintln(a.out)
		text := strings.TrimSpace(string(a.line))
		if text == "" {
			fmt.Fprintf(a.out, "skipped %s\n", id)
			a.skipped = true
			return true, nil
		}
		r, err := q.AnswerInput(id, text, approvals.Decider("watch"))
		switch {
		case errors.Is(err, approvals.ErrDecided), errors.Is(err, approvals.ErrUnknown):
			fmt.Fprintf(a.out, "%v\n", err)
		case err != nil:
			return true, err
		default:
			fmt.Fprintf(a.out, "%s %s\n", r.ID, r.Status)
		}
		return true, nil
	case 127, 8: // backspace
		if n := len(a.line); n > 0 {
			_, size := utf8.DecodeLastRune(a.line)
			a.line = a.line[:n-size]
			fmt.Fprint(a.out, "\b \b")
		}
		return false, nil
	}
	if k < 0x20 {
		return false, nil // other control keys are not part of an answer
	}
	a.line = append(a.line, k)
	// Echo a character once it is whole (a multi-byte one arrives a byte
	// at a key), visibly: a bidi override typed is shown escaped.
	if r, size := utf8.DecodeLastRune(a.line); r != utf8.RuneError || size > 1 {
		fmt.Fprint(a.out, approvals.Visible(string(a.line[len(a.line)-size:])))
	}
	return false, nil
}

// errQuit ends watch from inside a typed answer.
var errQuit = errors.New("quit")

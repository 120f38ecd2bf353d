package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

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
exit 1. So is an answer the tool's answerSchema does not allow (the error
says what the answer must be); the question still waits.`,
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

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// HumanTools serves declared human tools (interceptor mcp --human-tools):
// each call asks a person through a, held or parked as declared.
func HumanTools(decl []humantools.Tool, a *humantools.Asker) []Tool {
	out := make([]Tool, 0, len(decl))
	for _, t := range decl {
		out = append(out, Tool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			Call: func(ctx context.Context, args gjson.Result) (Result, error) {
				raw := args.Raw
				if !args.IsObject() {
					raw = "{}"
				}
				r, err := a.Call(ctx, t, rawjson.OneLine(raw))
				if err != nil {
					return Result{}, err
				}
				return Result{Text: r.Text, IsError: r.IsError}, nil
			},
		})
	}
	return out
}

// respondAnswer is the supervisor's respond(id, answer) on a human tool's
// question.
func respondAnswer(q *approvals.Store, id string, answer gjson.Result, by string) (Result, error) {
	if answer.Type != gjson.String || strings.TrimSpace(answer.Str) == "" {
		return Result{}, errors.New("answer must be a non-empty string")
	}
	r, err := q.AnswerInput(id, answer.Str, by)
	return responded(r, err, "answer")
}

// responded is respond's result: the request's id and new status, or the
// error, saying that a second response was not applied.
func responded(r approvals.Request, err error, what string) (Result, error) {
	if err != nil {
		if errors.Is(err, approvals.ErrDecided) {
			return Result{}, fmt.Errorf("%v; this %s was not applied", err, what)
		}
		return Result{}, err
	}
	out, _ := sjson.Set(`{}`, "id", r.ID)
	out, _ = sjson.Set(out, "status", string(r.Status))
	return Result{Text: out}, nil
}

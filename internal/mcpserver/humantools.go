package mcpserver

import (
	"context"

	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
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

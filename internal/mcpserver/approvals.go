package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/tidwall/gjson"
)

// ChildOptions configure the child role's permit tool.
type ChildOptions struct {
	Timeout        time.Duration // how long permit waits for a decision
	OnTimeoutAllow bool          // allow instead of deny when nobody decides
	Session        string        // recorded as the requests' session
	Chat           string        // recorded as the requests' child chat (interceptor children)
	// Tokens and Key: the records show stand-ins for the session's tokens
	// and for values under Key (see approvals.Call).
	Tokens *state.Store
	Key    string
	// Match, when set, limits asking to tools whose name matches; permit
	// allows any other call at once (interceptor children's approve).
	Match *regexp.Regexp
}

// ChildTools are the tools of `interceptor mcp --role child`: only permit,
// for Claude Code's --permission-prompt-tool. The child can ask, never
// answer: no tool of this role decides a request.
func ChildTools(q *approvals.Store, o ChildOptions) []Tool {
	if o.Timeout <= 0 {
		o.Timeout = approvals.DefaultTimeout
	}
	return []Tool{{
		Name: "permit",
		Description: "Permission prompt for " + hooks.PermitClient.Display + " (--permission-prompt-tool mcp__<server>__permit): " +
			"queues the tool call for a supervisor and answers with its decision.",
		InputSchema: `{"type":"object","properties":{"tool_name":{"type":"string"},"input":{"type":"object"},"tool_use_id":{"type":"string"}},"required":["tool_name","input"]}`,
		Call: func(ctx context.Context, args gjson.Result) (Result, error) {
			return Result{Text: Permit(ctx, q, o, args)}, nil
		},
	}}
}

// Permit queues one permission prompt and waits for its decision (see
// approvals.Store.Ask). It returns exactly the JSON Claude Code expects,
// nothing appended (hooks.PermitReply). It fails closed: any problem is a
// deny carrying the problem.
func Permit(ctx context.Context, q *approvals.Store, o ChildOptions, args gjson.Result) string {
	name := args.Get("tool_name")
	input := args.Get("input")
	if name.Type != gjson.String || name.Str == "" {
		return deny("interceptor permit: tool_name is missing; denied")
	}
	raw := input.Raw
	if !input.IsObject() {
		if input.Exists() && input.Type != gjson.Null {
			return deny("interceptor permit: input is not an object; denied")
		}
		raw = "{}"
	}
	raw = rawjson.OneLine(raw)
	session := o.Session
	if session == "" {
		session = os.Getenv(hooks.PermitSessionEnv)
	}
	origin := fmt.Sprintf("mcp permit pid %d", os.Getpid())
	if id := args.Get("tool_use_id").Str; id != "" {
		origin += " tool_use_id " + id
	}
	p := approvals.Policy{Match: o.Match, Timeout: o.Timeout, OnTimeoutAllow: o.OnTimeoutAllow}
	if !p.Decides(name.Str) {
		return string(hooks.PermitReply(hooks.Decision{Allow: true}, raw))
	}
	// Claude Code starts this server in the session's directory; the
	// permission prompt's arguments do not name it.
	cwd, _ := os.Getwd()
	d, err := q.Ask(ctx, p, approvals.Call{Client: hooks.PermitClient.Name, Session: session, Tool: name.Str, Input: raw, Origin: origin,
		Chat: o.Chat, ToolUseID: args.Get("tool_use_id").Str, Tokens: o.Tokens, Key: o.Key,
		Cwd: cwd, Project: approvals.ProjectOf(os.Getenv("CLAUDE_PROJECT_DIR"), cwd)})
	if err != nil {
		return deny("interceptor permit failed, so the call is denied: " + err.Error())
	}
	d.UpdatedInput = rawjson.OneLine(d.UpdatedInput)
	return string(hooks.PermitReply(d, raw))
}

func deny(message string) string {
	return string(hooks.PermitReply(hooks.Decision{Reason: message}, ""))
}

// SupervisorTools are the tools of `interceptor mcp --role supervisor`:
// pending, respond and history.
func SupervisorTools(q *approvals.Store, by string) []Tool {
	if by == "" {
		by = "mcp supervisor"
	}
	return []Tool{
		{
			Name: "pending",
			Description: "List the tool calls waiting for your decision (oldest first). With wait_seconds, " +
				"block until at least one is pending or the time is up (long poll; max 600).",
			InputSchema: `{"type":"object","properties":{"wait_seconds":{"type":"number","minimum":0,"maximum":600}}}`,
			Call: func(ctx context.Context, args gjson.Result) (Result, error) {
				wait := args.Get("wait_seconds")
				if wait.Exists() && wait.Type != gjson.Number && wait.Type != gjson.Null {
					return Result{}, errors.New("wait_seconds must be a number")
				}
				var rs []approvals.Request
				var err error
				if secs := wait.Float(); secs > 0 {
					wctx, cancel := context.WithTimeout(ctx, time.Duration(min(secs, 600)*float64(time.Second)))
					defer cancel()
					rs, err = q.WaitPending(wctx)
				} else {
					rs, err = q.Pending()
				}
				if err != nil {
					return Result{}, err
				}
				return Result{Text: listJSON("pending", q.Viewer().Requests(rs))}, nil
			},
		},
		{
			Name: "respond",
			Description: "Decide a pending request: allow (true) or deny (false), with an optional message the " +
				"child's model reads and, on allow, optional updated_input (the complete arguments to run with). " +
				"A request of kind input (a human tool's question) takes answer (text) instead of allow.",
			InputSchema: `{"type":"object","properties":{` + respondProperties + `},"required":["id"]}`,
			Call: func(ctx context.Context, args gjson.Result) (Result, error) {
				id, allow := args.Get("id"), args.Get("allow")
				if id.Type != gjson.String {
					return Result{}, errors.New("id must be a string")
				}
				if answer := args.Get("answer"); answer.Exists() {
					return respondAnswer(q, id.Str, answer, by)
				}
				if allow.Type != gjson.True && allow.Type != gjson.False {
					return Result{}, errors.New("allow must be true or false")
				}
				d := hooks.Decision{Allow: allow.Bool(), Reason: args.Get("message").Str, By: by}
				switch u := args.Get("updated_input"); {
				case u.IsObject():
					d.UpdatedInput = u.Raw
				case u.Type == gjson.String && gjson.Valid(u.Str) && gjson.Parse(u.Str).IsObject():
					d.UpdatedInput = u.Str
				case u.Exists() && u.Type != gjson.Null:
					return Result{}, errors.New("updated_input must be an object")
				}
				r, err := q.Decide(id.Str, d)
				return responded(r, err, "response")
			},
		},
		{
			Name:        "history",
			Description: "The newest requests with their decisions (default 50), oldest first; or one request by id.",
			InputSchema: `{"type":"object","properties":{"limit":{"type":"integer","minimum":1},"id":{"type":"string"}}}`,
			Call: func(ctx context.Context, args gjson.Result) (Result, error) {
				if id := args.Get("id"); id.Exists() {
					r, err := q.Get(id.String())
					if err != nil {
						return Result{}, err
					}
					return Result{Text: q.Viewer().Request(r).JSON()}, nil
				}
				limit := int(args.Get("limit").Int())
				if limit <= 0 {
					limit = 50
				}
				rs, err := q.List(approvals.Filter{Limit: limit})
				if err != nil {
					return Result{}, err
				}
				return Result{Text: listJSON("requests", q.Viewer().Requests(rs))}, nil
			},
		},
	}
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
	return resultOf(responseResult{ID: r.ID, Status: r.Status})
}

// responseResult is respond's result. Type and ApprovalID are the
// reference design's (WithChildren).
type responseResult struct {
	ID         string           `json:"id"`
	Status     approvals.Status `json:"status"`
	Type       string           `json:"type,omitempty"`
	ApprovalID string           `json:"approval_id,omitempty"`
}

// respondProperties are respond's arguments (its input schema's
// properties).
const respondProperties = `"id":{"type":"string"},"allow":{"type":"boolean"},"message":{"type":"string"},"updated_input":{"type":"object"},"answer":{"type":"string"}`

func listJSON(key string, rs []approvals.Request) string {
	var b strings.Builder
	b.WriteString(`{"` + key + `":[`)
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.JSON())
	}
	b.WriteString("]}")
	return b.String()
}

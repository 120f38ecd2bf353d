package humantools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// DefaultParkTTL is how long a parked question waits for its answer.
const DefaultParkTTL = 24 * time.Hour

// Asker turns human tool calls into input requests.
type Asker struct {
	Queue *approvals.Store
	// Client, Session and Chat are recorded with each request: who asks,
	// the client's session when the asker knows it (else the post-tool
	// hook binds a parked request to it), the child chat (interceptor
	// children) when there is one.
	Client, Session, Chat string
	// Timeout bounds a held call's wait (default approvals.DefaultTimeout);
	// keep it below the client's MCP tool timeout.
	Timeout time.Duration
	// ParkTTL is how long a parked question may wait for its answer
	// (default DefaultParkTTL).
	ParkTTL time.Duration
	// Origin says what enqueued a request, e.g. "mcp human tools pid 12".
	Origin string
	// Tokens and Key: the arguments people see show stand-ins for the
	// session's tokens and for every value under Key (default
	// approvals.DefaultKey), as approval records do. With Tokens nil only
	// the values under Key are masked.
	Tokens *state.Store
	Key    string
}

// Reply is a human tool's result.
type Reply struct {
	Text    string
	IsError bool
	ID      string // the input request's id
}

// Call asks a person for t with the call's arguments (raw JSON; "" is {}).
// A held tool waits for the answer (until Timeout or ctx ends); a parked
// one returns at once with ParkText. An error means nothing was asked.
func (a *Asker) Call(ctx context.Context, t Tool, args string) (Reply, error) {
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	sec := approvals.LoadSecrets(a.Tokens, a.Session, a.Key)
	now := time.Now()
	req := approvals.Request{
		Kind: approvals.KindInput, Mode: t.Mode,
		Client: a.Client, Session: a.Session, Chat: a.Chat, Tool: t.Name,
		InputSchema:  t.InputSchema,  // the inbox lays the question out by it
		AnswerSchema: t.AnswerSchema, // and offers the answers it allows
		Input:        sec.Mask(args),
		Origin:       a.Origin,
	}
	if t.Mode == approvals.ModePark {
		req.Deadline = now.Add(orDefault(a.ParkTTL, DefaultParkTTL))
		r, err := a.Queue.Enqueue(req)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Text: ParkText(r.ID), ID: r.ID}, nil
	}
	timeout := orDefault(a.Timeout, approvals.DefaultTimeout)
	req.Deadline = now.Add(timeout)
	r, err := a.Queue.Enqueue(req)
	if err != nil {
		return Reply{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	got, err := a.Queue.Wait(wctx, r.ID)
	if err != nil {
		if wctx.Err() == nil {
			return Reply{}, err
		}
		by := "timeout after " + timeout.String()
		if ctx.Err() != nil {
			by = "the client cancelled the call"
		}
		// Expire it, unless an answer won the race.
		if got, err = a.Queue.Expire(r.ID, by); err != nil {
			return Reply{}, err
		}
	}
	if got.Status == approvals.Answered {
		return Reply{Text: got.Answer, ID: got.ID}, nil
	}
	return Reply{Text: fmt.Sprintf("Nobody answered within %s (%s); go on without the answer or ask again later.",
		timeout, approvals.InputMarker(got.ID)), IsError: true, ID: got.ID}, nil
}

// ParkText is a parked call's result: short, naming the request so the
// post-tool hook can bind it to the session.
func ParkText(id string) string {
	return "A person will answer this " + approvals.InputMarker(id) +
		". End your turn now; the answer comes with the next message."
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Deliver takes the answers waiting for a session (or, with chat set, a
// child chat) and returns the context the next turn starts with ("" when
// none). Each answer is taken once: of concurrent callers exactly one gets
// it (approvals.Store.TakeAnswers).
func Deliver(q *approvals.Store, session, chat, to string) (string, []approvals.Request, error) {
	if session == "" && chat == "" {
		return "", nil, errors.New("no session id in the event: nothing to deliver to")
	}
	return DeliverMatching(q, func(r approvals.Request) bool {
		return session != "" && r.Session == session || chat != "" && r.Chat == chat
	}, to)
}

// Context renders delivered answers for the model.
func Context(rs []approvals.Request) string {
	var b strings.Builder
	b.WriteString("A person answered what you asked earlier:\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "- %s %s (you asked with %s): %s\n", r.Tool, approvals.InputMarker(r.ID), r.Input, r.Answer)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Bind ties the parked request a post-tool event's result names to the
// event's session. toolName is the tool as the client names it
// (mcp__human__ask, mcp_human_ask, human_ask): it must end with the
// request's tool, so another tool's result that quotes a marker binds
// nothing. It returns the request's id, or "" when the result names none.
func Bind(q *approvals.Store, session, toolName string, texts []string) (string, error) {
	id := ""
	for _, t := range texts {
		if id = approvals.FindInput(t); id != "" {
			break
		}
	}
	if id == "" {
		return "", nil
	}
	r, err := q.Get(id)
	if err != nil {
		return "", err
	}
	if !r.IsInput() || r.Mode != approvals.ModePark || !strings.HasSuffix(toolName, r.Tool) {
		return "", fmt.Errorf("the result of %s names request %s, which is not its parked call", toolName, id)
	}
	_, err = q.BindInput(id, session)
	return id, err
}

// EndSession expires what a session's human tool requests still wait for:
// a later answer is refused, and a parked answer not yet delivered never
// will be.
func EndSession(q *approvals.Store, session, by string) ([]approvals.Request, error) {
	if session == "" {
		return nil, nil
	}
	return q.EndInputs(func(r approvals.Request) bool { return r.Session == session }, by)
}

// Served is a declaration served beside another server's tools (interceptor
// proxy --human-tools; it is a proxy.Human).
type Served struct {
	Decl  []Tool
	Asker *Asker
}

// toolObject is a declared tool as an MCP tool object.
type toolObject struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Tools are the declared tools as MCP tool objects, raw JSON.
func (s *Served) Tools() ([]string, error) {
	out := make([]string, 0, len(s.Decl))
	for _, t := range s.Decl {
		b, err := rawjson.Marshal(toolObject{t.Name, t.Description, json.RawMessage(t.InputSchema)})
		if err != nil {
			return nil, fmt.Errorf("human tool %s: %w", t.Name, err)
		}
		out = append(out, string(b))
	}
	return out, nil
}

// Has reports whether name is a declared tool.
func (s *Served) Has(name string) bool {
	_, ok := s.tool(name)
	return ok
}

func (s *Served) tool(name string) (Tool, bool) {
	for _, t := range s.Decl {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Call asks a person (see Asker.Call); a failure to ask is a tool error the
// model reads.
func (s *Served) Call(name, args string) (string, bool) {
	t, ok := s.tool(name)
	if !ok {
		return "no human tool " + name, true
	}
	r, err := s.Asker.Call(context.Background(), t, args)
	if err != nil {
		return "interceptor could not ask a person: " + err.Error(), true
	}
	return r.Text, r.IsError
}

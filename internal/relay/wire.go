package relay

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// What crosses the network, and under which names (docs/relay.md,
// SECURITY.md). Every name a machine writes or listens on holds its
// machine name, so NATS permissions can scope each relay to its own.
const (
	// RequestsBucket holds each machine's open requests: key
	// <machine>.<id>, value an Entry. A request no longer open is deleted.
	RequestsBucket = "interceptor_requests"
	// MachinesBucket holds each relay's presence: key <machine>, value a
	// Presence, put every Presence.Every.
	MachinesBucket = "interceptor_machines"
)

// ActionSubject is where an inbox sends a machine's decisions and answers
// (request/reply): interceptor.<machine>.act. Only that machine's relay
// listens there.
func ActionSubject(machine string) string { return "interceptor." + machine + ".act" }

// requestKey is the bucket key of a request.
func requestKey(machine, id string) string { return machine + "." + id }

// CheckMachine refuses a machine name that is not one NATS subject token
// of letters, digits, '-' and '_' (at most 64): a dot or a wildcard in it
// would reach into other machines' names.
func CheckMachine(m string) error {
	if m == "" || len(m) > 64 {
		return fmt.Errorf("machine name %q: want 1 to 64 letters, digits, '-' or '_'", m)
	}
	for _, c := range m {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("machine name %q: want 1 to 64 letters, digits, '-' or '_' (%q is none)", m, c)
		}
	}
	return nil
}

// DefaultMachine is the host name made a machine name (the part before
// the first dot, other characters as '-').
func DefaultMachine() (string, error) {
	h, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("--machine: no host name to default to: %w", err)
	}
	h, _, _ = strings.Cut(h, ".")
	b := []byte(h)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	m := string(b)
	if err := CheckMachine(m); err != nil {
		return "", errors.New("--machine: the host name makes no machine name; give one")
	}
	return m, nil
}

// Entry is one open request as a relay publishes it: what this machine's
// own views show (the queue's Viewer: stand-ins for held tokens; every
// string Visible, JSON VisibleJSON), never a held value.
type Entry struct {
	Machine string `json:"machine"`
	Child   string `json:"child,omitempty"` // the asking chat's child, by name
	Request Wire   `json:"request"`
}

// Wire is the part of an approvals.Request a remote page shows and acts
// on.
type Wire struct {
	ID          string `json:"id"`
	Kind        string `json:"kind,omitempty"`
	Mode        string `json:"mode,omitempty"`
	Status      string `json:"status"`
	Client      string `json:"client"`
	Session     string `json:"session,omitempty"`
	Tool        string `json:"tool"`
	Input       string `json:"input"` // JSON text
	InputSchema string `json:"input_schema,omitempty"`
	// AnswerSchema is what a question's answer must be (JSON text), so
	// another machine's page offers its choices; the answer is checked
	// again by the question's own queue when it arrives.
	AnswerSchema string `json:"answer_schema,omitempty"`
	Origin       string `json:"origin,omitempty"`
	Chat         string `json:"chat,omitempty"`
	ToolUseID    string `json:"tool_use_id,omitempty"`
	// Cwd and Project are the session's working directory and project:
	// every card names them (issue 31), another machine's too.
	Cwd      string    `json:"cwd,omitempty"`
	Project  string    `json:"project,omitempty"`
	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// wire makes a request, masked by the queue's Viewer already, what may
// cross the network.
func wire(r approvals.Request) Wire {
	v := approvals.Visible
	w := Wire{ID: r.ID, Kind: v(r.Kind), Mode: v(r.Mode), Status: string(r.Status), Client: v(r.Client),
		Session: v(r.Session), Tool: v(r.Tool), Input: approvals.VisibleJSON(r.Input), Origin: v(r.Origin),
		Chat: v(r.Chat), ToolUseID: v(r.ToolUseID), Cwd: v(r.Cwd), Project: v(r.Project), Created: r.Created, Deadline: r.Deadline}
	if r.InputSchema != "" {
		w.InputSchema = approvals.VisibleJSON(r.InputSchema)
	}
	if r.AnswerSchema != "" {
		w.AnswerSchema = approvals.VisibleJSON(r.AnswerSchema)
	}
	return w
}

// Request is w as the page renders requests.
func (w Wire) Request() approvals.Request {
	return approvals.Request{ID: w.ID, Kind: w.Kind, Mode: w.Mode, Status: approvals.Status(w.Status), Client: w.Client,
		Session: w.Session, Tool: w.Tool, Input: w.Input, InputSchema: w.InputSchema, AnswerSchema: w.AnswerSchema, Origin: w.Origin, Chat: w.Chat,
		ToolUseID: w.ToolUseID, Cwd: w.Cwd, Project: w.Project, Created: w.Created, Deadline: w.Deadline}
}

// Presence is a relay's heartbeat: an inbox shows a machine whose last
// one is older than Unreachable(now) as unreachable, and its requests
// with it.
type Presence struct {
	Machine string    `json:"machine"`
	At      time.Time `json:"at"`
	EveryMS int64     `json:"every_ms"`
	Offline bool      `json:"offline,omitempty"` // the relay stopped cleanly
	// Children are the machine's children as its own page lists them
	// (inbox.ChildrenJSON: stand-ins, never a held value).
	Children json.RawMessage `json:"children,omitempty"`
}

// Reachable reports whether p's relay answered lately: three heartbeats
// and a margin.
func (p Presence) Reachable(now time.Time) bool {
	every := time.Duration(p.EveryMS) * time.Millisecond
	return !p.Offline && now.Sub(p.At) < 3*every+2*time.Second
}

// Action is a decision or an answer an inbox sends a machine's relay.
type Action struct {
	ID           string `json:"id"`
	Allow        *bool  `json:"allow,omitempty"` // a decision
	Answer       string `json:"answer,omitempty"`
	Reason       string `json:"message,omitempty"`
	UpdatedInput string `json:"updated_input,omitempty"`
	// By and From name who decided and on which machine (the inbox's
	// Decider, its machine name): recorded, not proven (docs/relay.md).
	By   string `json:"by"`
	From string `json:"from"`
}

// Reply is the relay's answer to an Action: the request as stored after
// it, or why nothing was applied.
type Reply struct {
	ID        string `json:"id"`
	Status    string `json:"status,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
	// Error is set when nothing was applied; Code says why: "decided"
	// (decided, answered or expired meanwhile), "unknown", "answer" (an
	// answer its answerSchema does not allow), "bad".
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
}

// Package idxserver is an MCP server for the end-to-end tests that is as
// awkward as m2ux/workflow-server's main (issue 20): a session is named by a
// stable 6-character base32 session_index ([A-Z2-7]{6}, often without a
// digit), which every authenticated tool requires as an argument.
//
//   - start_session returns the index in _meta.session_index and as a
//     top-level session_index field of its JSON text; on a designated
//     restart it fails instead (an isError result with no index), and the
//     session it would have replaced is closed;
//   - get_activity prints prose mentioning session_index, then a
//     "session_index: X" line; every other result carries
//     _meta.session_index of the session the call ran against;
//   - dispatch_child starts a child session and returns its own index as
//     child_session_index in its JSON text: two indexes are live at once.
//
// Every call is logged (JSON lines) with the index it received and a
// verdict, so a test can tell that no call ran against another session.
package idxserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/internal/jsonl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Arg is the argument and _meta key the index travels under.
const Arg = "session_index"

// Verdicts of the log.
const (
	VerdictOK = "ok"
	// VerdictMissing: the call carried no session_index.
	VerdictMissing = "missing"
	// VerdictMalformed: session_index is not a string.
	VerdictMalformed = "malformed"
	// VerdictUnknown: an index this instance never issued (an earlier
	// client run's, or made up).
	VerdictUnknown = "unknown"
	// VerdictAnother: an index this instance issued, of a session that is
	// not the current one nor one of its children (a session a restart
	// replaced): the call would run against another session.
	VerdictAnother = "belongs_to_another_session"
	// VerdictStartFailed: a designated restart that failed.
	VerdictStartFailed = "start_failed"
	// VerdictBadArgument: arguments that are not an object.
	VerdictBadArgument = "bad_argument"
)

// StartFailedText begins the text of a start_session that failed.
const StartFailedText = "start_session failed"

// Roles of a session.
const (
	RoleParent = "parent"
	RoleChild  = "child"
)

// Config configures one server instance.
type Config struct {
	LogPath string // JSON-lines log, appended; empty: none
	Name    string // the name the client configured the server under (logged)
	// FailRestartFile designates restarts that fail: when the file exists
	// as an instance's second start_session arrives, that call fails.
	FailRestartFile string
}

// Record is one line of the log.
type Record struct {
	Time     string         `json:"time"`
	Event    string         `json:"event"` // "start" or "call"
	Name     string         `json:"name,omitempty"`
	Instance string         `json:"instance"`
	PID      int            `json:"pid"`
	Tool     string         `json:"tool,omitempty"`
	Args     map[string]any `json:"args,omitempty"`
	// HasIndex: the call carried a session_index argument; Received is it
	// (when a string).
	HasIndex bool   `json:"has_index,omitempty"`
	Received string `json:"received,omitempty"`
	Verdict  string `json:"verdict,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Session is the index of the session an accepted call ran against,
	// Role that session's role.
	Session string `json:"session,omitempty"`
	Role    string `json:"role,omitempty"`
	// Issued is the index start_session or dispatch_child minted.
	Issued string `json:"issued,omitempty"`
	// Starts counts this instance's start_session calls, this one included.
	Starts int `json:"starts,omitempty"`
}

// ReadLog parses a log (a missing file: no records).
func ReadLog(path string) ([]Record, error) { return jsonl.Read[Record](path) }

type session struct {
	role   string
	parent string // a child's parent index
	closed bool
}

// Server is one running instance.
type Server struct {
	cfg      Config
	instance string
	mu       sync.Mutex
	sessions map[string]*session
	order    int    // sessions minted so far, for the shape of the next index
	current  string // the current parent session's index ("": none)
	starts   int
	logf     *jsonl.Log
}

// New creates an instance and opens its log.
func New(cfg Config) (*Server, error) {
	s := &Server{cfg: cfg, instance: newIndex(false) + newIndex(false), sessions: map[string]*session{}}
	var err error
	if s.logf, err = jsonl.Open(cfg.LogPath, "indexserver"); err != nil {
		return nil, err
	}
	s.log(Record{Event: "start"})
	return s, nil
}

// Close closes the log.
func (s *Server) Close() error { return s.logf.Close() }

func (s *Server) log(r Record) {
	if s.logf == nil {
		return
	}
	r.Time = time.Now().UTC().Format(time.RFC3339Nano)
	r.Name, r.Instance, r.PID = s.cfg.Name, s.instance, os.Getpid()
	s.logf.Write(r)
}

const (
	base32Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	letters     = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// newIndex returns 6 random characters of base32; with digit, at least one
// is a digit, else none is (about 29% of real indexes have none: the case
// the old shape rules refused).
func newIndex(digit bool) string {
	for {
		alphabet := letters
		if digit {
			alphabet = base32Chars
		}
		b := make([]byte, 6)
		for i := range b {
			n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
			if err != nil {
				panic(err)
			}
			b[i] = alphabet[n.Int64()]
		}
		if !digit || strings.ContainsAny(string(b), "234567") {
			return string(b)
		}
	}
}

// mint registers a new session. Callers hold s.mu. Of every three sessions
// an instance mints, the first and the third have no digit.
func (s *Server) mint(role, parent string) string {
	digit := s.order%3 == 1
	s.order++
	for {
		idx := newIndex(digit)
		if _, taken := s.sessions[idx]; !taken {
			s.sessions[idx] = &session{role: role, parent: parent}
			return idx
		}
	}
}

// MCPServer builds the MCP server.
func (s *Server) MCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "e2e-index-workflow-server", Version: "1.0.0"}, nil)
	srv.AddTool(&mcp.Tool{
		Name:        "start_session",
		Description: "Start a workflow session. Returns the session_index every other tool requires.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"workflow_id":{"type":"string","description":"The workflow to run."}}}`),
	}, s.startSession)
	srv.AddTool(&mcp.Tool{
		Name:        "get_activity",
		Description: "Show an activity of the session's workflow.",
		InputSchema: indexSchema(`"activity_id":{"type":"string","description":"The activity to show."}`, "activity_id"),
	}, s.authenticated("get_activity", s.getActivity))
	srv.AddTool(&mcp.Tool{
		Name:        "next_activity",
		Description: "Move the session's workflow on by a transition.",
		InputSchema: indexSchema(`"transition":{"type":"string","description":"The transition to take."}`, "transition"),
	}, s.authenticated("next_activity", s.nextActivity))
	srv.AddTool(&mcp.Tool{
		Name:        "dispatch_child",
		Description: "Dispatch a child workflow in a session of its own; returns the child's child_session_index.",
		InputSchema: indexSchema(`"workflow_id":{"type":"string","description":"The child's workflow."}`, "workflow_id"),
	}, s.authenticated("dispatch_child", s.dispatchChild))
	return srv
}

// indexSchema is an input schema with props (JSON members) and a required
// session_index.
func indexSchema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(append(required, Arg))
	return json.RawMessage(`{"type":"object","properties":{` + props + `,"session_index":{"type":"string",` +
		`"description":"The session_index start_session returned (6 characters)."}},"required":` + string(req) + `}`)
}

func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	err := json.Unmarshal(raw, &args)
	return args, err
}

func errResult(format string, a ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}
}

// result is a result with text that carries idx in _meta.
func result(idx, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Meta: mcp.Meta{Arg: idx}, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// call starts the log record of a call of tool; a call whose arguments are
// not an object is logged and answered here (bad).
func (s *Server) call(tool string, req *mcp.CallToolRequest) (rec Record, bad *mcp.CallToolResult) {
	args, err := decodeArgs(req.Params.Arguments)
	rec = Record{Event: "call", Tool: tool, Args: args}
	if err != nil {
		rec.Verdict, rec.Reason = VerdictBadArgument, err.Error()
		s.log(rec)
		return rec, errResult("bad arguments: %v", err)
	}
	return rec, nil
}

func (s *Server) startSession(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	rec, bad := s.call("start_session", req)
	if bad != nil {
		return bad, nil
	}
	args := rec.Args
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts++
	rec.Starts = s.starts
	if s.starts == 2 && s.cfg.FailRestartFile != "" {
		if _, err := os.Stat(s.cfg.FailRestartFile); err == nil {
			// The session a restart replaces is gone either way.
			if cur := s.sessions[s.current]; cur != nil {
				cur.closed = true
			}
			s.current = ""
			rec.Verdict, rec.Reason = VerdictStartFailed, "designated restart failure"
			s.log(rec)
			return errResult("%s: the workspace is locked by another agent. Call start_session again.", StartFailedText), nil
		}
	}
	workflow, _ := args["workflow_id"].(string)
	if workflow == "" {
		workflow = "release-review"
	}
	if cur := s.sessions[s.current]; cur != nil {
		cur.closed = true // a restart replaces the session
	}
	idx := s.mint(RoleParent, "")
	s.current = idx
	rec.Verdict, rec.Issued, rec.Session, rec.Role = VerdictOK, idx, idx, RoleParent
	s.log(rec)
	return result(idx, jsonText(map[string]any{
		Arg:           idx,
		"workflow_id": workflow,
		"status":      "started",
		"next":        "Call get_activity with this session_index; every tool but start_session requires it.",
	})), nil
}

// handler is an authenticated tool's body: the call ran against session
// idx; it fills rec (Verdict ok is set by the caller).
type handler func(idx string, args map[string]any, rec *Record) (*mcp.CallToolResult, error)

// authenticated checks session_index before running h: it must be the
// current session's or one of its live children's.
func (s *Server) authenticated(tool string, h handler) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rec, bad := s.call(tool, req)
		if bad != nil {
			return bad, nil
		}
		args := rec.Args
		s.mu.Lock()
		defer s.mu.Unlock()
		reject := func(verdict, reason string) (*mcp.CallToolResult, error) {
			rec.Verdict, rec.Reason = verdict, reason
			s.log(rec)
			return errResult("%s rejected (%s): %s", tool, verdict, reason), nil
		}
		raw, has := args[Arg]
		rec.HasIndex = has
		idx, isString := raw.(string)
		rec.Received = idx
		switch {
		case !has || raw == nil || isString && idx == "":
			return reject(VerdictMissing, "session_index is required: pass the session_index start_session returned")
		case !isString:
			return reject(VerdictMalformed, fmt.Sprintf("session_index must be a string, got %v", raw))
		}
		sess := s.sessions[idx]
		switch {
		case sess == nil:
			return reject(VerdictUnknown, fmt.Sprintf("session_index %s was not issued by this server", idx))
		case sess.closed || s.current == "" || idx != s.current && sess.parent != s.current:
			return reject(VerdictAnother, fmt.Sprintf("session_index %s belongs to another session than the current one", idx))
		}
		rec.Session, rec.Role = idx, sess.role
		res, err := h(idx, args, &rec)
		if rec.Verdict == "" {
			rec.Verdict = VerdictOK
		}
		s.log(rec)
		return res, err
	}
}

func (s *Server) getActivity(idx string, args map[string]any, rec *Record) (*mcp.CallToolResult, error) {
	activity, _ := args["activity_id"].(string)
	text := strings.Join([]string{
		"# Activity: " + activity,
		"",
		"Every call of this workflow passes the session_index shown below; a call with",
		"another session's session_index runs against that session.",
		"Steps: review the plan, then call next_activity.",
		"",
		Arg + ": " + idx,
	}, "\n")
	return result(idx, text), nil
}

func (s *Server) nextActivity(idx string, args map[string]any, rec *Record) (*mcp.CallToolResult, error) {
	transition, _ := args["transition"].(string)
	return result(idx, jsonText(map[string]any{"transition": transition, "status": "advanced"})), nil
}

func (s *Server) dispatchChild(idx string, args map[string]any, rec *Record) (*mcp.CallToolResult, error) {
	workflow, _ := args["workflow_id"].(string)
	child := s.mint(RoleChild, idx)
	rec.Issued = child
	return result(idx, jsonText(map[string]any{
		"child_session_index": child,
		"workflow_id":         workflow,
		"status":              "dispatched",
		"note":                "The child runs in a session of its own: pass its child_session_index as session_index to act on it.",
	})), nil
}

package wfserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/internal/jsonl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Roles of the server binary.
const (
	RoleWF    = "wf"    // token-authenticated workflow server
	RoleOther = "other" // unrelated server whose tool must never see a token
)

// Verdicts written to the log.
const (
	VerdictOK          = "ok"
	VerdictMissing     = "missing_token"
	VerdictMalformed   = "malformed_token"
	VerdictForged      = "forged_token"
	VerdictForeign     = "foreign_token" // signed, but for a session this instance never issued
	VerdictStale       = "stale_token"   // not the latest token issued for its sid
	VerdictBadArgument = "bad_argument"
)

// Config configures one server instance.
type Config struct {
	Role       string
	LogPath    string // JSON-lines log; empty disables logging
	Structured bool   // also return structuredContent {session_token, ...}
	Secret     []byte
	Workflow   string
	// TokenOptional leaves session_token out of next_step's "required"
	// schema list (the server still rejects a call without it). Gemini CLI
	// validates the model's arguments against the schema before its
	// BeforeTool hook runs, so a hook cannot supply a required argument.
	TokenOptional bool
	// Name is the name the client configured this server under (logged;
	// the probe role's results quote it).
	Name string
	// Tools are the probe role's tool names.
	Tools []string
	// Awkward makes the workflow server answer like real ones do (see
	// awkward.go): prose, code and quoted text mentioning session_token
	// before the real line, TOON and JSON bodies, echoes of older tokens, a
	// tool whose token is only in _meta, checkpoints, nested sessions.
	Awkward bool
}

// Record is one line of the log.
type Record struct {
	Time     string         `json:"time"`
	Event    string         `json:"event"` // "start" or "call"
	Server   string         `json:"server"`
	Name     string         `json:"name,omitempty"` // Config.Name
	Instance string         `json:"instance"`
	PID      int            `json:"pid"`
	Tool     string         `json:"tool,omitempty"`
	Args     map[string]any `json:"args,omitempty"`
	// HasToken reports whether the call carried a session_token argument.
	HasToken      bool   `json:"has_token"`
	ReceivedToken string `json:"received_token,omitempty"`
	ReceivedSID   string `json:"received_sid,omitempty"`
	ReceivedSeq   int    `json:"received_seq,omitempty"`
	Verdict       string `json:"verdict,omitempty"`
	Reason        string `json:"reason,omitempty"`
	IssuedToken   string `json:"issued_token,omitempty"`
	IssuedSID     string `json:"issued_sid,omitempty"`
	IssuedSeq     int    `json:"issued_seq,omitempty"`
	Structured    bool   `json:"structured,omitempty"`
	TokenOptional bool   `json:"token_optional,omitempty"`
	Awkward       bool   `json:"awkward,omitempty"`
	// ParentSID is the session a start_session's verified
	// parent_session_token belongs to.
	ParentSID string `json:"parent_sid,omitempty"`
	// Workflow is the workflow of the session a call started or used.
	Workflow string `json:"workflow,omitempty"`
	// Handle is the checkpoint handle save_checkpoint issued or
	// resume_checkpoint accepted.
	Handle string `json:"checkpoint_handle,omitempty"`
}

// ReadLog parses a log file written by servers (missing file: no records).
func ReadLog(path string) ([]Record, error) { return jsonl.Read[Record](path) }

type session struct {
	latest   string
	seq      int
	workflow string
	parent   string // sid of the parent session, if any
}

// Server is one running instance.
type Server struct {
	cfg      Config
	instance string
	mu       sync.Mutex
	sessions map[string]*session
	handles  map[string]string // checkpoint handle -> sid
	logf     *jsonl.Log
}

// New creates a server instance and opens its log.
func New(cfg Config) (*Server, error) {
	if cfg.Role == "" {
		cfg.Role = RoleWF
	}
	if cfg.Role != RoleWF && cfg.Role != RoleOther && cfg.Role != RoleProbe {
		return nil, fmt.Errorf("unknown role %q", cfg.Role)
	}
	if len(cfg.Secret) == 0 {
		cfg.Secret = []byte("interceptor-e2e-secret")
	}
	if cfg.Workflow == "" {
		cfg.Workflow = "release-review"
	}
	s := &Server{cfg: cfg, instance: randHex(4), sessions: map[string]*session{}, handles: map[string]string{}}
	var err error
	if s.logf, err = jsonl.Open(cfg.LogPath, "tokenserver"); err != nil {
		return nil, err
	}
	s.log(Record{Event: "start", Structured: cfg.Structured, TokenOptional: cfg.TokenOptional, Awkward: cfg.Awkward})
	return s, nil
}

// Close closes the log.
func (s *Server) Close() error { return s.logf.Close() }

// Instance returns this instance's random id (also in its tokens' claims).
func (s *Server) Instance() string { return s.instance }

func (s *Server) log(r Record) {
	if s.logf == nil {
		return
	}
	r.Time = time.Now().UTC().Format(time.RFC3339Nano)
	r.Server = s.cfg.Role
	r.Name = s.cfg.Name
	r.Instance = s.instance
	r.PID = os.Getpid()
	s.logf.Write(r)
}

// MCPServer builds the MCP server exposing this instance's tools.
func (s *Server) MCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "e2e-" + s.cfg.Role, Version: "1.0.0"}, nil)
	switch s.cfg.Role {
	case RoleWF:
		startProps := `"resume_token":{"type":"string","description":"A saved session_token to resume."}`
		if s.cfg.Awkward {
			startProps += `,"workflow_id":{"type":"string","description":"The workflow to run."},` +
				`"parent_session_token":{"type":"string","description":"The session_token of the orchestrating session, for a nested workflow."}`
		}
		srv.AddTool(&mcp.Tool{
			Name:        "start_session",
			Description: "Start a workflow session. Returns a session_token that every later call needs.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + startProps + `}}`),
		}, s.startSession)
		srv.AddTool(&mcp.Tool{
			Name:        "next_step",
			Description: "Advance the workflow by one step. Requires the latest session_token.",
			InputSchema: s.tokenSchema(`"step":{"type":"string","description":"Name of the step."}`, "step"),
		}, s.nextStep)
		if s.cfg.Awkward {
			s.addAwkwardTools(srv)
		}
	case RoleOther:
		srv.AddTool(&mcp.Tool{
			Name:        "echo",
			Description: "Echo the text back.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"session_token":{"type":"string"}},"required":["text"]}`),
		}, s.echo)
	case RoleProbe:
		s.addProbeTools(srv)
	}
	return srv
}

// tokenSchema is the input schema of a tool taking session_token besides
// props (JSON members), with required listing session_token (unless
// TokenOptional) and the names in required.
func (s *Server) tokenSchema(props string, required ...string) json.RawMessage {
	if !s.cfg.TokenOptional {
		required = append(required, "session_token")
	}
	if props != "" {
		props += ","
	}
	req, _ := json.Marshal(append([]string{}, required...))
	return json.RawMessage(`{"type":"object","properties":{` + props +
		`"session_token":{"type":"string","description":"The latest session_token."}},"required":` + string(req) + `}`)
}

func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	err := json.Unmarshal(raw, &args)
	return args, err
}

// newSession registers a session of workflow, nested under parent (a sid)
// if that is set. Callers hold s.mu.
func (s *Server) newSession(workflow, parent string) string {
	sid := "s_" + randHex(8)
	s.sessions[sid] = &session{workflow: workflow, parent: parent}
	return sid
}

// issue makes the next token for sid (a new session when sid is empty).
// Callers hold s.mu.
func (s *Server) issue(sid, act string) (string, string, int) {
	if sid == "" {
		sid = s.newSession(s.cfg.Workflow, "")
	}
	st := s.sessions[sid]
	st.seq++
	tok := Sign(s.cfg.Secret, Claims{
		SID: sid, Seq: st.seq, TS: time.Now().Unix(), WF: st.workflow, Act: act,
		Instance: s.instance, Scope: []string{"workflow:read", "workflow:write", "workflow:advance"},
		Nonce: randHex(16), Aud: "mcp://e2e-workflow-server/" + st.workflow,
	})
	st.latest = tok
	return tok, sid, st.seq
}

func (s *Server) result(text, tok string, fields map[string]any) *mcp.CallToolResult {
	return s.resultWithText(text+"\nsession_token: "+tok, tok, fields)
}

// resultWithText is a result carrying tok in _meta (and structuredContent)
// whose text is exactly text.
func (s *Server) resultWithText(text, tok string, fields map[string]any) *mcp.CallToolResult {
	res := &mcp.CallToolResult{
		Meta:    mcp.Meta{"session_token": tok},
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
	}
	if s.cfg.Structured {
		sc := map[string]any{"session_token": tok}
		for k, v := range fields {
			sc[k] = v
		}
		res.StructuredContent = sc
	}
	return res
}

func errResult(format string, a ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}
}

func (s *Server) startSession(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := decodeArgs(req.Params.Arguments)
	rec := Record{Event: "call", Tool: "start_session", Args: args, Structured: s.cfg.Structured}
	if err != nil {
		rec.Verdict, rec.Reason = VerdictBadArgument, err.Error()
		s.log(rec)
		return errResult("bad arguments: %v", err), nil
	}
	_, rec.HasToken = args["session_token"]
	s.mu.Lock()
	defer s.mu.Unlock()
	reject := func(verdict, reason string) (*mcp.CallToolResult, error) {
		rec.Verdict, rec.Reason = verdict, reason
		s.log(rec)
		return errResult("start_session rejected (%s): %s", verdict, reason), nil
	}
	sid := ""
	if rt, ok := args["resume_token"].(string); ok && rt != "" {
		rec.ReceivedToken = rt
		c, verdict, reason := s.check(rt)
		rec.ReceivedSID, rec.ReceivedSeq = c.SID, c.Seq
		if verdict != VerdictOK {
			return reject(verdict, reason)
		}
		sid = c.SID
	}
	var parentTok string
	if pt, ok := args["parent_session_token"]; ok && s.cfg.Awkward {
		parentTok, _ = pt.(string)
		if sid != "" {
			return reject(VerdictBadArgument, "resume_token and parent_session_token exclude each other")
		}
		rec.ReceivedToken = parentTok
		c, verdict, reason := s.check(parentTok)
		rec.ReceivedSID, rec.ReceivedSeq = c.SID, c.Seq
		if verdict != VerdictOK {
			return reject(verdict, "parent_session_token: "+reason)
		}
		workflow, _ := args["workflow_id"].(string)
		if workflow == "" {
			return reject(VerdictBadArgument, "a nested session needs its workflow_id")
		}
		sid = s.newSession(workflow, c.SID)
		rec.ParentSID = c.SID
	} else if w, _ := args["workflow_id"].(string); w != "" && sid == "" && s.cfg.Awkward {
		sid = s.newSession(w, "")
	}
	tok, sid, seq := s.issue(sid, "start_session")
	rec.Verdict, rec.IssuedToken, rec.IssuedSID, rec.IssuedSeq = VerdictOK, tok, sid, seq
	rec.Workflow = s.sessions[sid].workflow
	s.log(rec)
	fields := map[string]any{"sid": sid, "seq": seq, "status": "started"}
	if s.cfg.Awkward {
		return s.resultWithText(s.startedText(sid, seq, tok, parentTok), tok, fields), nil
	}
	return s.result(fmt.Sprintf("Workflow %q session %s started (seq %d). Call next_step with the session_token below.", rec.Workflow, sid, seq),
		tok, fields), nil
}

// check validates tok against this instance's sessions. Callers hold s.mu.
func (s *Server) check(tok string) (Claims, string, string) {
	c, err := Verify(s.cfg.Secret, tok)
	switch {
	case err == ErrMalformed:
		return c, VerdictMalformed, "session_token is not <base64url>.<hex hmac>"
	case err != nil:
		return c, VerdictForged, "session_token signature does not verify"
	}
	st, ok := s.sessions[c.SID]
	if !ok {
		return c, VerdictForeign, fmt.Sprintf("session %s (instance %s) was not issued by this server (instance %s)", c.SID, c.Instance, s.instance)
	}
	if tok != st.latest {
		return c, VerdictStale, fmt.Sprintf("session_token seq %d is stale; latest issued for %s is seq %d", c.Seq, c.SID, st.seq)
	}
	return c, VerdictOK, ""
}

func (s *Server) nextStep(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, c, bad := s.authorized("next_step", req)
	if bad != nil {
		return bad, nil
	}
	tok := rec.ReceivedToken
	step, _ := rec.Args["step"].(string)
	if step == "" {
		rec.Verdict, rec.Reason = VerdictBadArgument, "step is required"
		s.log(rec)
		return errResult("next_step rejected (%s): %s", rec.Verdict, rec.Reason), nil
	}
	ntok, sid, seq := s.issue(c.SID, "next_step:"+step)
	rec.Verdict, rec.IssuedToken, rec.IssuedSID, rec.IssuedSeq = VerdictOK, ntok, sid, seq
	rec.Workflow = s.sessions[sid].workflow
	s.log(rec)
	fields := map[string]any{"sid": sid, "seq": seq, "step": step, "status": "accepted"}
	if s.cfg.Awkward {
		return s.resultWithText(stepText(step, sid, seq, tok, ntok), ntok, fields), nil
	}
	return s.result(fmt.Sprintf("Step %q accepted for session %s (seq %d).", step, sid, seq), ntok, fields), nil
}

func (s *Server) echo(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := decodeArgs(req.Params.Arguments)
	rec := Record{Event: "call", Tool: "echo", Args: args}
	if err != nil {
		rec.Verdict, rec.Reason = VerdictBadArgument, err.Error()
		s.log(rec)
		return errResult("bad arguments: %v", err), nil
	}
	_, rec.HasToken = args["session_token"]
	if tok, ok := args["session_token"].(string); ok {
		rec.ReceivedToken = tok
	}
	rec.Verdict = VerdictOK
	s.log(rec)
	text, _ := args["text"].(string)
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
		Text: fmt.Sprintf("echo: %s (argument keys: %s)", text, strings.Join(keys, ","))}}}, nil
}

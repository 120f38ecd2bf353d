// Package fakemodel serves scripted model endpoints for the end-to-end tests:
// the Anthropic Messages API, the OpenAI Responses and Chat Completions APIs
// and the Gemini generateContent API, each with SSE streaming.
//
// Every conversation follows one script, chosen by how many tool results the
// request already holds (never by global counters, so concurrent sessions
// are independent):
//
//	0 results: call <wf>.start_session {}
//	1 result:  call <wf>.next_step {"step":"one"}   (no session_token: a hook must inject it)
//	2 results: call <other>.echo {"text":...}
//	3 results: call <wf>.next_step {"step":"two"}
//	otherwise: answer with text
//
// Tool names are looked up in the request's own tool list (mcp__wf__next_step,
// mcp_wf_next_step, wf_next_step, or namespace mcp__wf + next_step), so each
// client's naming works. Requests whose tool list lacks the workflow tools
// (titles, summaries, routing, quota checks) are side requests and get a short
// text answer. Every request body is recorded.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// FinalText is the text of the last turn of a scripted conversation.
const FinalText = "E2E-DONE: all workflow steps were attempted."

// SideText answers side requests (titles, summaries, checks).
const SideText = "E2E side answer"

// Steps are the next_step calls of the script, in order.
var Steps = []string{"one", "two"}

// ToolCalls is the number of tool calls in a scripted conversation when the
// other server's echo tool is offered: start_session, echo and Steps.
var ToolCalls = 2 + len(Steps)

// Options configures a Server.
type Options struct {
	// RecordDir, if set, receives every request body as NNNN-<api>-<kind>.json.
	RecordDir string
	// WFServer and OtherServer are the MCP server names as configured in the
	// client (default "wf" and "other").
	WFServer, OtherServer string
	// EchoText is the text sent to the other server's echo tool.
	EchoText string
	// Logf, if set, receives one line per request.
	Logf func(format string, args ...any)
	// Barrier, if set, holds scripted turns to make concurrent sessions
	// interleave (see Barrier).
	Barrier *Barrier
	// Script, if set, replaces the workflow script of Server.Plan.
	Script Script
}

// Barrier holds every scripted (main) request that has AtResults tool
// results until Parties such requests have arrived, or Timeout has passed.
// With AtResults 1 and Parties 2, two concurrent sessions have both
// finished start_session (and its post-tool hook) before either is told to
// call next_step.
type Barrier struct {
	AtResults int
	Parties   int
	Timeout   time.Duration

	mu       sync.Mutex
	arrived  int
	released chan struct{}
	timedOut atomic.Int64
}

// TimedOut reports how many held requests were released by the timeout
// rather than by the last party arriving.
func (b *Barrier) TimedOut() int { return int(b.timedOut.Load()) }

func (b *Barrier) wait(results int) {
	if b == nil || results != b.AtResults {
		return
	}
	b.mu.Lock()
	if b.released == nil {
		b.released = make(chan struct{})
	}
	ch := b.released
	b.arrived++
	if b.arrived == b.Parties {
		close(ch)
	}
	b.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(b.Timeout):
		b.timedOut.Add(1)
	}
}

// Request is one recorded request.
type Request struct {
	Seq         int
	API         string // anthropic, responses, chat, gemini
	Path        string
	Body        []byte
	Main        bool // carried the workflow tools (a scripted turn)
	ToolResults int  // tool results in the conversation so far
	Reply       string
}

// Server is an http.Handler serving all four APIs.
type Server struct {
	opts Options
	seq  atomic.Int64
	ids  atomic.Int64
	mu   sync.Mutex
	reqs []Request
}

// New returns a Server.
func New(opts Options) *Server {
	if opts.WFServer == "" {
		opts.WFServer = "wf"
	}
	if opts.OtherServer == "" {
		opts.OtherServer = "other"
	}
	if opts.EchoText == "" {
		opts.EchoText = "hello from the e2e model"
	}
	return &Server{opts: opts}
}

// Requests returns a copy of the requests recorded so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) id(prefix string) string { return fmt.Sprintf("%s_e2e_%04d", prefix, s.ids.Add(1)) }

// Tool is a tool as the client offers it to the model.
type Tool struct {
	Namespace string // Responses API namespace tools (Codex): "mcp__wf"
	Name      string
}

func (t Tool) String() string {
	if t.Namespace != "" {
		return t.Namespace + "/" + t.Name
	}
	return t.Name
}

// Action is what the model does in one turn.
type Action struct {
	Tool Tool           // zero for a text answer
	Args map[string]any // tool arguments
	Text string         // text answer (when Tool is zero)
}

// IsTool reports whether the action is a tool call.
func (a Action) IsTool() bool { return a.Tool.Name != "" }

func (a Action) String() string {
	if a.IsTool() {
		b, _ := json.Marshal(a.Args)
		return "call " + a.Tool.String() + " " + string(b)
	}
	return fmt.Sprintf("text %q", a.Text)
}

// ServerPattern is a regexp matching server's name as the clients spell it
// in tool names: each character other than a letter or digit may have been
// replaced (Codex turns wf-server into wf_server).
func ServerPattern(server string) string {
	var b strings.Builder
	for _, r := range server {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteString(`[^A-Za-z0-9]`)
		}
	}
	return b.String()
}

// ClientTool is the client's own tool of that exact name (Bash, Edit,
// Write: no server in it), as scripts driving a client's tools find it.
func ClientTool(tools []Tool, name string) (Tool, bool) {
	i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == name })
	if i < 0 {
		return Tool{}, false
	}
	return tools[i], true
}

func findTool(tools []Tool, server, name string) (Tool, bool) {
	re := regexp.MustCompile(`(^|_)` + ServerPattern(server) + `_+` + regexp.QuoteMeta(name) + `$`)
	for _, t := range tools {
		full := t.Name
		if t.Namespace != "" {
			full = t.Namespace + "__" + t.Name
		}
		if re.MatchString(full) {
			return t, true
		}
	}
	return Tool{}, false
}

// Plan decides the next action of a conversation that already holds
// toolResults tool results and offers tools. main reports whether the
// workflow tools were offered at all (otherwise it is a side request).
func (s *Server) Plan(toolResults int, tools []Tool) (act Action, main bool) {
	start, ok1 := findTool(tools, s.opts.WFServer, "start_session")
	next, ok2 := findTool(tools, s.opts.WFServer, "next_step")
	if !ok1 || !ok2 {
		return Action{Text: SideText}, false
	}
	steps := []Action{{Tool: start, Args: map[string]any{}}}
	for i, step := range Steps {
		steps = append(steps, Action{Tool: next, Args: map[string]any{"step": step}})
		if echo, ok := findTool(tools, s.opts.OtherServer, "echo"); ok && i == 0 {
			steps = append(steps, Action{Tool: echo, Args: map[string]any{"text": s.opts.EchoText}})
		}
	}
	if toolResults < len(steps) {
		return steps[toolResults], true
	}
	return Action{Text: FinalText}, true
}

// plan decides the next action with the configured script.
func (s *Server) plan(c Conversation, tools []Tool) (Action, bool) {
	if s.opts.Script != nil {
		return s.opts.Script.Plan(c, tools)
	}
	return s.Plan(len(c.Results), tools)
}

// turn is called by every API handler once the action is chosen: it records
// the request and applies the barrier to scripted turns.
func (s *Server) turn(r *http.Request, api string, body []byte, main bool, results int, act Action) {
	s.record(r, api, body, main, results, act.String())
	if main {
		s.opts.Barrier.wait(results)
	}
}

func (s *Server) record(r *http.Request, api string, body []byte, main bool, results int, reply string) {
	rq := Request{Seq: int(s.seq.Add(1)), API: api, Path: r.URL.RequestURI(), Body: body, Main: main, ToolResults: results, Reply: reply}
	s.mu.Lock()
	s.reqs = append(s.reqs, rq)
	s.mu.Unlock()
	kind := "side"
	if main {
		kind = "main"
	}
	if s.opts.RecordDir != "" {
		name := fmt.Sprintf("%04d-%s-%s.json", rq.Seq, api, kind)
		if err := os.WriteFile(filepath.Join(s.opts.RecordDir, name), body, 0o644); err != nil && s.opts.Logf != nil {
			s.opts.Logf("fakemodel: record: %v", err)
		}
	}
	if s.opts.Logf != nil {
		s.opts.Logf("fakemodel: #%d %s %s %s results=%d -> %s", rq.Seq, r.Method, rq.Path, kind, results, reply)
	}
}

// ServeHTTP routes to the API handlers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		s.models(w, r)
	case r.Method != http.MethodPost:
		s.record(r, "other", nil, false, 0, "404")
		http.NotFound(w, r)
	case strings.HasSuffix(p, "/messages/count_tokens"):
		s.countTokens(w, r)
	case strings.HasSuffix(p, "/messages"):
		s.anthropic(w, r)
	case strings.HasSuffix(p, "/responses"):
		s.responses(w, r)
	case strings.HasSuffix(p, "/chat/completions"):
		s.chat(w, r)
	case strings.Contains(p, "/models/") && strings.Contains(p, ":"):
		s.gemini(w, r)
	default:
		body, _ := io.ReadAll(r.Body)
		s.record(r, "other", body, false, 0, "404")
		http.NotFound(w, r)
	}
}

func readJSON(w http.ResponseWriter, r *http.Request, v any) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return body, false
	}
	return body, true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events; event may be empty (data-only streams).
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w, f}
}

func (e *sse) send(event string, data any) {
	var buf bytes.Buffer
	if event != "" {
		fmt.Fprintf(&buf, "event: %s\n", event)
	}
	switch d := data.(type) {
	case string:
		fmt.Fprintf(&buf, "data: %s\n\n", d)
	default:
		b, _ := json.Marshal(d)
		fmt.Fprintf(&buf, "data: %s\n\n", b)
	}
	e.w.Write(buf.Bytes())
	if e.f != nil {
		e.f.Flush()
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.record(r, "models", nil, false, 0, "model list")
	writeJSON(w, map[string]any{
		"object": "list",
		"data":   []map[string]any{{"id": "e2e-model", "object": "model", "type": "model", "display_name": "E2E model", "created": 0, "owned_by": "e2e"}},
		"models": []map[string]any{{"name": "models/e2e-model", "slug": "e2e-model"}},
	})
}

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.record(r, "anthropic-count", body, false, 0, "count")
	writeJSON(w, map[string]any{"input_tokens": 1 + len(body)/4})
}

package proxytest

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Revisions the tests speak: the SDK's default (2026-07-28, per-request
// _meta, no initialize) and the last one with initialize.
const (
	Modern = "2026-07-28"
	Legacy = "2025-11-25"
)

// tokenShape matches every token a ModernServer issues.
var tokenShape = regexp.MustCompile(`tk\.[0-9a-f]{32}`)

// ModernServer is a token workflow server on the go-sdk (v1.8.0), for the
// tests of revision 2026-07-28 through the proxies. start_session issues a
// token; next_step needs the latest and issues the next; confirm asks the
// client to confirm (a multi round-trip request: input_required, with a
// requestState holding the token and a MAC over it) and needs the state
// back byte for byte, and the latest token; grow adds a tool, so the tool
// list changes. Every refusal is a tool error the client reads.
type ModernServer struct {
	mu     sync.Mutex
	latest string
	secret []byte
	calls  int
	Server *mcp.Server
	// Cancelled gets a value when a call of hold (which waits for its
	// cancellation) ends cancelled.
	Cancelled chan struct{}
}

// NewModernServer returns the server; versions, when given, are the only
// revisions it accepts.
func NewModernServer(versions ...string) *ModernServer {
	s := &ModernServer{secret: []byte("modern-test-secret"), Cancelled: make(chan struct{}, 1)}
	s.Server = mcp.NewServer(&mcp.Implementation{Name: "modern-wf", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: versions})
	s.Server.AddTool(&mcp.Tool{Name: "start_session", InputSchema: json.RawMessage(`{"type":"object"}`)}, s.startSession)
	s.Server.AddTool(&mcp.Tool{Name: "next_step", InputSchema: json.RawMessage(`{"type":"object","properties":{"step":{"type":"string"},"session_token":{"type":"string"}},"required":["step","session_token"]}`)}, s.nextStep)
	s.Server.AddTool(&mcp.Tool{Name: "confirm", InputSchema: json.RawMessage(`{"type":"object","properties":{"session_token":{"type":"string"}},"required":["session_token"]}`)}, s.confirm)
	s.Server.AddTool(&mcp.Tool{Name: "grow", InputSchema: json.RawMessage(`{"type":"object"}`)}, s.grow)
	s.Server.AddTool(&mcp.Tool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`)}, s.hold)
	return s
}

// Calls is how many calls the server accepted.
func (s *ModernServer) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *ModernServer) issue() *mcp.CallToolResult {
	b := make([]byte, 16)
	rand.Read(b)
	s.latest = "tk." + hex.EncodeToString(b)
	s.calls++
	return &mcp.CallToolResult{
		Meta:    mcp.Meta{"session_token": s.latest},
		Content: []mcp.Content{&mcp.TextContent{Text: "ok\nsession_token: " + s.latest}},
	}
}

func refuse(format string, a ...any) *mcp.CallToolResult {
	b, _ := json.Marshal(a)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: format + " " + string(b)}}}
}

// CheckCancel calls hold and gives up on it after a moment, as a client
// whose user stops a call: the server must see the call cancelled.
func CheckCancel(t *testing.T, c *ModernClient, s *ModernServer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := c.CS.CallTool(ctx, &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}}); err == nil {
		t.Fatal("hold returned before it was cancelled")
	}
	select {
	case <-s.Cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's call was not cancelled")
	}
}

// token checks the call's session_token against the latest.
func (s *ModernServer) token(req *mcp.CallToolRequest) *mcp.CallToolResult {
	var args struct {
		Token *string `json:"session_token"`
	}
	json.Unmarshal(req.Params.Arguments, &args)
	if args.Token == nil || s.latest == "" || *args.Token != s.latest {
		return refuse("rejected: session_token is not the latest")
	}
	return nil
}

func (s *ModernServer) startSession(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issue(), nil
}

func (s *ModernServer) nextStep(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.token(req); r != nil {
		return r, nil
	}
	return s.issue(), nil
}

// state is the requestState confirm hands out: the token and a MAC over it.
func (s *ModernServer) state(tok string) string {
	m := hmac.New(sha256.New, s.secret)
	io.WriteString(m, tok)
	return "v1." + tok + "." + hex.EncodeToString(m.Sum(nil))
}

func (s *ModernServer) confirm(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.token(req); r != nil {
		return r, nil
	}
	if len(req.Params.InputResponses) == 0 {
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Message: "Confirm the step?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)}},
			RequestState: s.state(s.latest),
		}, nil
	}
	if req.Params.RequestState != s.state(s.latest) {
		return refuse("rejected: requestState was modified in transit:", req.Params.RequestState), nil
	}
	if r, ok := req.Params.InputResponses["ok"].(*mcp.ElicitResult); !ok || r.Action != "accept" {
		return refuse("rejected: not confirmed:", req.Params.InputResponses), nil
	}
	s.calls++
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "confirmed"}}}, nil
}

func (s *ModernServer) hold(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	select {
	case <-ctx.Done():
		select {
		case s.Cancelled <- struct{}{}:
		default:
		}
		return nil, ctx.Err()
	case <-time.After(10 * time.Second):
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "never cancelled"}}}, nil
	}
}

func (s *ModernServer) grow(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.Server.AddTool(&mcp.Tool{Name: "grown", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil
}

// ServeModernStdio runs a ModernServer on stdin and stdout (a child
// process of a stdio proxy test); only2026 limits it to 2026-07-28.
func ServeModernStdio(only2026 bool) int {
	var versions []string
	if only2026 {
		versions = []string{Modern}
	}
	if err := NewModernServer(versions...).Server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// ModernClient is a go-sdk client connected through a proxy.
type ModernClient struct {
	CS *mcp.ClientSession
	// Seen is every byte the proxy wrote to the client.
	Seen *SyncBuffer
	// Changed gets a value for each notifications/tools/list_changed.
	Changed chan struct{}
}

// ConnectModern connects a go-sdk client to the proxy that run serves on
// pipes, asking for revision version: Modern (the SDK's default: it tries
// server/discover first) or Legacy (initialize). The client accepts every
// elicitation and listens for tool list changes.
func ConnectModern(t *testing.T, version string, run func(in io.Reader, out io.Writer)) *ModernClient {
	t.Helper()
	fromProxyR, toProxyW := serve(run)
	c := &ModernClient{Seen: &SyncBuffer{}, Changed: make(chan struct{}, 16)}
	client := mcp.NewClient(&mcp.Implementation{Name: "modern-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case c.Changed <- struct{}{}:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(fromProxyR, c.Seen)), Writer: toProxyW},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect through the proxy at %s: %v", version, err)
	}
	c.CS = cs
	return c
}

// CheckModern runs the token workflow through the proxy, as a model
// would (never passing a token): the revision negotiated is want, every
// call carries the latest token, the multi round-trip call gets its
// requestState back (it holds the token), a tool added on the server
// reaches the client as a list change, and the client never sees a token.
func CheckModern(t *testing.T, c *ModernClient, want string) {
	t.Helper()
	if got := c.CS.InitializeResult().ProtocolVersion; got != want {
		t.Fatalf("negotiated %q, want %q", got, want)
	}
	CheckWorkflow(t, c.CS)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.CS.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("confirm: %v", err)
	}
	if text := resultText(res); res.IsError || text != "confirmed" {
		t.Fatalf("confirm (a multi round-trip call whose requestState holds the token): %s", text)
	}
	if res, err := c.CS.CallTool(ctx, &mcp.CallToolParams{Name: "grow", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("grow: %v %s", err, resultText(res))
	}
	select {
	case <-c.Changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed reached the client")
	}
	tools, err := c.CS.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "grown") {
		t.Fatalf("tools after the change: %v", names)
	}
	if tok := tokenShape.FindString(c.Seen.String()); tok != "" {
		t.Fatalf("the client saw a token: %s", tok)
	}
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return "(no result)"
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

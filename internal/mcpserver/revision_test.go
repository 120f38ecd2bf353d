package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// connectSDK connects the go-sdk's client (v1.8.0) to srv at version (""
// for the SDK's default: 2026-07-28 through server/discover).
func connectSDK(t *testing.T, srv *Server, version string) *mcp.ClientSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go srv.Serve(context.Background(), sr, sw)
	t.Cleanup(func() { cw.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %q: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Issue 21: the go-sdk client negotiates 2026-07-28 with the supervisor's
// and the child's servers (server/discover), and lists and calls there;
// asked for 2025-11-25 it gets it through initialize; asked for a revision
// nobody speaks yet, it learns ours from -32022 and goes on at 2026-07-28.
func TestOfficialClientModern(t *testing.T) {
	q := queue(t)
	for _, c := range []struct {
		role  string
		tools []Tool
		call  string
		args  map[string]any
	}{
		{"supervisor", SupervisorTools(q, ""), "pending", map[string]any{}},
		{"child", ChildTools(q, ChildOptions{Timeout: time.Second}), "permit", map[string]any{"input": map[string]any{}}},
	} {
		for _, asked := range []struct{ version, want string }{
			{"", "2026-07-28"},
			{"2099-01-01", "2026-07-28"},
			{"2025-11-25", "2025-11-25"},
		} {
			t.Run(c.role+" "+asked.version, func(t *testing.T) {
				srv := &Server{Name: "interceptor-approvals", Version: "test", Tools: c.tools, Instructions: "test"}
				cs := connectSDK(t, srv, asked.version)
				if got := cs.InitializeResult().ProtocolVersion; got != asked.want {
					t.Fatalf("negotiated %q, want %q", got, asked.want)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				tools, err := cs.ListTools(ctx, nil)
				if err != nil || len(tools.Tools) != len(c.tools) {
					t.Fatalf("tools: %+v %v", tools, err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.call, Arguments: c.args})
				if err != nil || len(res.Content) != 1 {
					t.Fatalf("%s: %+v %v", c.call, res, err)
				}
			})
		}
	}
}

// Each 2026-07-28 request is checked on its own: a revision this server
// does not speak gets -32022 with the supported and the requested ones,
// missing client capabilities -32602; results carry resultType and the
// server's identity, a list its cache fields; server/discover and
// subscriptions/listen are answered; a legacy request is answered as
// before.
func TestModernRequests(t *testing.T) {
	s := start(t, &Server{Name: "x", Version: "1", Instructions: "use echo", Tools: []Tool{{Name: "echo", InputSchema: `{"type":"object"}`,
		Call: func(_ context.Context, a gjson.Result) (Result, error) { return Result{Text: a.Get("v").Str}, nil }}}})

	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	r := s.recv()
	supported, _ := json.Marshal(Versions)
	if r.Get("id").Int() != 1 || r.Get("error.code").Int() != -32022 || r.Get("error.data.requested").Str != "1900-01-01" || r.Get("error.data.supported").Raw != string(supported) {
		t.Fatalf("an unsupported revision: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	if r := s.recv(); r.Get("error.code").Int() != codeInvalidParams || !strings.Contains(r.Get("error.message").Str, "clientCapabilities") {
		t.Fatalf("no client capabilities: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + modernMeta + `}}`)
	r = s.recv()
	if r.Get("result.resultType").Str != "complete" || r.Get("result.supportedVersions").Raw != string(supported) ||
		!r.Get("result.capabilities.tools").Exists() || r.Get("result.instructions").Str != "use echo" ||
		r.Get("result.ttlMs").Type != gjson.Number || r.Get("result.cacheScope").Str == "" ||
		r.Get(`result._meta.io\.modelcontextprotocol/serverInfo.name`).Str != "x" {
		t.Fatalf("server/discover: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + modernMeta + `}}`)
	r = s.recv()
	if r.Get("result.resultType").Str != "complete" || r.Get("result.tools.0.name").Str != "echo" ||
		r.Get("result.ttlMs").Int() != 0 || r.Get("result.ttlMs").Type != gjson.Number || r.Get("result.cacheScope").Str != "private" {
		t.Fatalf("tools/list: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"v":"hi"},` + modernMeta + `}}`)
	if r := s.recv(); r.Get("result.resultType").Str != "complete" || r.Get("result.content.0.text").Str != "hi" ||
		r.Get(`result._meta.io\.modelcontextprotocol/serverInfo.version`).Str != "1" {
		t.Fatalf("tools/call: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":6,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`)
	if r := s.recv(); r.Get("method").Str != "notifications/subscriptions/acknowledged" || r.Get("params.notifications").Raw != "{}" ||
		r.Get(`params._meta.io\.modelcontextprotocol/subscriptionId`).Int() != 6 {
		t.Fatalf("listen's acknowledgement: %s", r.Raw)
	}
	if r := s.recv(); r.Get("id").Int() != 6 || r.Get("result.resultType").Str != "complete" {
		t.Fatalf("listen's result: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{}}}`)
	if r := s.recv(); r.Get("result.protocolVersion").Str != "2025-11-25" {
		t.Fatalf("initialize asking for 2026-07-28: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	if r := s.recv(); r.Get("result.resultType").Exists() || r.Get("result.ttlMs").Exists() || r.Get("result._meta").Exists() || r.Get("result.tools.#").Int() != 1 {
		t.Fatalf("a legacy tools/list: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":9,"method":"server/discover"}`)
	if r := s.recv(); r.Get("error.code").Int() != codeInvalidParams {
		t.Fatalf("server/discover without a revision: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":10,"method":"subscriptions/listen","params":{}}`)
	if r := s.recv(); r.Get("error.code").Int() != codeNoMethod {
		t.Fatalf("a legacy subscriptions/listen: %s", r.Raw)
	}
}

// TestRemovedMethodsModern: revision 2026-07-28 has no initialize and no
// ping (SEP-2575): a request that names that revision gets -32601, as the
// go-sdk's servers answer it; without it, or naming a legacy revision,
// both are answered as before.
func TestRemovedMethodsModern(t *testing.T) {
	s := start(t, &Server{Name: "x", Version: "1"})
	for i, method := range []string{"initialize", "ping"} {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"protocolVersion":"2026-07-28","capabilities":{},%s}}`, i+1, method, modernMeta))
		if r := s.recv(); r.Get("id").Int() != int64(i+1) || r.Get("error.code").Int() != -32601 || r.Get("result").Exists() ||
			!strings.Contains(r.Get("error.message").Str, method) {
			t.Fatalf("%s at 2026-07-28: %s", method, r.Raw)
		}
	}
	legacyMeta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}`
	for i, params := range []string{`{"protocolVersion":"2025-06-18","capabilities":{}}`, `{"protocolVersion":"2025-11-25","capabilities":{},` + legacyMeta + `}`} {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":%s}`, 10+i, params))
		if r := s.recv(); r.Get("error").Exists() || r.Get("result.protocolVersion").Str != gjson.Parse(params).Get("protocolVersion").Str {
			t.Fatalf("a legacy initialize: %s", r.Raw)
		}
	}
	for i, params := range []string{``, `,"params":{}`, `,"params":{` + legacyMeta + `}`} {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"%s}`, 20+i, params))
		if r := s.recv(); r.Get("error").Exists() || r.Get("result").Raw != "{}" {
			t.Fatalf("a legacy ping: %s", r.Raw)
		}
	}
}

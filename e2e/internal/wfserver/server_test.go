package wfserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(t *testing.T, cfg Config) (*mcp.ClientSession, *Server) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCPServer().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, s
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// tokenOf returns the token of a result, checking that _meta and the text agree.
func tokenOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error result: %s", text(res))
	}
	tok, _ := res.Meta["session_token"].(string)
	if tok == "" {
		t.Fatalf("no _meta.session_token in %+v", res)
	}
	if !strings.Contains(text(res), "\nsession_token: "+tok) {
		t.Fatalf("text does not carry the token line: %q", text(res))
	}
	return tok
}

func TestTokenFlow(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "log.jsonl")
	cs, srv := connect(t, Config{LogPath: logPath})

	t0 := tokenOf(t, call(t, cs, "start_session", nil))
	if n := len(t0); n < 300 || n > 500 {
		t.Errorf("token length %d, want 300..500", n)
	}
	c0, err := Verify([]byte("interceptor-e2e-secret"), t0)
	if err != nil || c0.Seq != 1 || c0.Instance != srv.Instance() {
		t.Fatalf("claims %+v, err %v", c0, err)
	}

	// Missing, forged and malformed tokens are rejected.
	if r := call(t, cs, "next_step", map[string]any{"step": "one"}); !r.IsError || !strings.Contains(text(r), VerdictMissing) {
		t.Errorf("missing token: %v %q", r.IsError, text(r))
	}
	forged := t0[:len(t0)-4] + "0000"
	if forged == t0 {
		forged = t0[:len(t0)-4] + "1111"
	}
	if r := call(t, cs, "next_step", map[string]any{"step": "one", "session_token": forged}); !r.IsError || !strings.Contains(text(r), VerdictForged) {
		t.Errorf("forged token: %v %q", r.IsError, text(r))
	}
	if r := call(t, cs, "next_step", map[string]any{"step": "one", "session_token": "nope"}); !r.IsError || !strings.Contains(text(r), VerdictMalformed) {
		t.Errorf("malformed token: %v %q", r.IsError, text(r))
	}

	t1 := tokenOf(t, call(t, cs, "next_step", map[string]any{"step": "one", "session_token": t0}))
	if t1 == t0 {
		t.Fatal("next_step returned the same token")
	}
	// t0 is now stale.
	if r := call(t, cs, "next_step", map[string]any{"step": "two", "session_token": t0}); !r.IsError || !strings.Contains(text(r), VerdictStale) {
		t.Errorf("stale token: %v %q", r.IsError, text(r))
	}
	t2 := tokenOf(t, call(t, cs, "next_step", map[string]any{"step": "two", "session_token": t1}))

	// A token signed by another instance is foreign here.
	other, _ := connect(t, Config{})
	if r := call(t, other, "next_step", map[string]any{"step": "x", "session_token": t2}); !r.IsError || !strings.Contains(text(r), VerdictForeign) {
		t.Errorf("foreign token: %v %q", r.IsError, text(r))
	}

	recs, err := ReadLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var verdicts []string
	for _, r := range recs {
		if r.Event == "call" {
			verdicts = append(verdicts, r.Tool+"="+r.Verdict)
		}
	}
	want := "start_session=ok next_step=missing_token next_step=forged_token next_step=malformed_token next_step=ok next_step=stale_token next_step=ok"
	if got := strings.Join(verdicts, " "); got != want {
		t.Errorf("log verdicts:\n got %s\nwant %s", got, want)
	}
	last := recs[len(recs)-1]
	if last.ReceivedToken != t1 || last.IssuedToken != t2 || last.IssuedSeq != 3 || last.ReceivedSID != c0.SID {
		t.Errorf("last record %+v", last)
	}
}

func TestResume(t *testing.T) {
	cs, _ := connect(t, Config{})
	t0 := tokenOf(t, call(t, cs, "start_session", nil))
	t1 := tokenOf(t, call(t, cs, "start_session", map[string]any{"resume_token": t0}))
	c0, _ := Parse(t0)
	c1, _ := Parse(t1)
	if c1.SID != c0.SID || c1.Seq != 2 {
		t.Errorf("resume: %+v after %+v", c1, c0)
	}
}

func TestStructured(t *testing.T) {
	cs, _ := connect(t, Config{Structured: true})
	res := call(t, cs, "start_session", nil)
	tok := tokenOf(t, res)
	sc, ok := res.StructuredContent.(map[string]any)
	if !ok || sc["session_token"] != tok {
		t.Fatalf("structuredContent %#v", res.StructuredContent)
	}
	cs2, _ := connect(t, Config{})
	if r := call(t, cs2, "start_session", nil); r.StructuredContent != nil {
		t.Errorf("text-only server returned structuredContent %#v", r.StructuredContent)
	}
}

func TestOtherEcho(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "log.jsonl")
	cs, _ := connect(t, Config{Role: RoleOther, LogPath: logPath})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" {
		t.Fatalf("tools %+v %v", tools, err)
	}
	call(t, cs, "echo", map[string]any{"text": "hi"})
	call(t, cs, "echo", map[string]any{"text": "hi", "session_token": "leaked"})
	recs, _ := ReadLog(logPath)
	if len(recs) != 3 || recs[1].HasToken || !recs[2].HasToken || recs[2].ReceivedToken != "leaked" {
		t.Errorf("records %+v", recs)
	}
}

func TestTokenOptionalSchema(t *testing.T) {
	for _, optional := range []bool{false, true} {
		cs, _ := connect(t, Config{TokenOptional: optional})
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			if tool.Name != "next_step" {
				continue
			}
			req := tool.InputSchema.(map[string]any)["required"].([]any)
			hasTok := false
			for _, r := range req {
				hasTok = hasTok || r == "session_token"
			}
			if hasTok == optional {
				t.Errorf("TokenOptional=%v: required %v", optional, req)
			}
		}
		// Either way a call without the token is rejected.
		if r := call(t, cs, "next_step", map[string]any{"step": "one"}); !r.IsError {
			t.Errorf("TokenOptional=%v: call without token accepted", optional)
		}
	}
}

func TestProbe(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "log.jsonl")
	cs, _ := connect(t, Config{Role: RoleProbe, Name: "wf server", Tools: []string{"probe", "Probe-Dash.Dot9"}, LogPath: logPath})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools %+v %v", tools, err)
	}
	res := call(t, cs, "Probe-Dash.Dot9", map[string]any{ProbeArg: "mcp__wf_server__Probe-Dash_Dot9"})
	if res.IsError || !strings.Contains(text(res), `server "wf server", tool "Probe-Dash.Dot9"`) {
		t.Errorf("probe result %q", text(res))
	}
	recs, _ := ReadLog(logPath)
	if len(recs) != 2 || recs[0].Name != "wf server" || recs[1].Tool != "Probe-Dash.Dot9" || recs[1].Args[ProbeArg] != "mcp__wf_server__Probe-Dash_Dot9" {
		t.Errorf("records %+v", recs)
	}
}

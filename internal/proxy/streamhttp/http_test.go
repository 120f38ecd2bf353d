package streamhttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/proxy"
	"github.com/interceptor-dev/interceptor/internal/proxy/proxytest"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// httpTokenServer is a small token-authenticated MCP server on Streamable
// HTTP (the e2e token server speaks stdio only): start_session issues a
// token, next_step requires the latest one and issues the next; tokens come
// back in _meta and in a text line. ask_roots asks the client for its roots,
// a server-to-client request.
type httpTokenServer struct {
	mu      sync.Mutex
	latest  string
	calls   []proxytest.LogRecord
	headers []string // Authorization of each HTTP request
	methods map[string]int
}

func (s *httpTokenServer) issue() string {
	b := make([]byte, 24)
	rand.Read(b)
	s.latest = "tk." + hex.EncodeToString(b)
	return s.latest
}

func (s *httpTokenServer) result(text, tok string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Meta:    mcp.Meta{"session_token": tok},
		Content: []mcp.Content{&mcp.TextContent{Text: text + "\nsession_token: " + tok}},
	}
}

func (s *httpTokenServer) mcpServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "http-wf", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "start_session", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			tok := s.issue()
			s.calls = append(s.calls, proxytest.LogRecord{Event: "call", Tool: "start_session", Verdict: "ok", IssuedToken: tok})
			return s.result("started", tok), nil
		})
	srv.AddTool(&mcp.Tool{Name: "next_step", InputSchema: json.RawMessage(`{"type":"object","properties":{"step":{"type":"string"},"session_token":{"type":"string"}},"required":["step","session_token"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Step  string  `json:"step"`
				Token *string `json:"session_token"`
			}
			json.Unmarshal(req.Params.Arguments, &args)
			s.mu.Lock()
			defer s.mu.Unlock()
			rec := proxytest.LogRecord{Event: "call", Tool: "next_step", HasToken: args.Token != nil, Verdict: "ok"}
			if args.Token == nil || *args.Token != s.latest {
				rec.Verdict = "bad_token"
				s.calls = append(s.calls, rec)
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "rejected"}}}, nil
			}
			rec.IssuedToken = s.issue()
			s.calls = append(s.calls, rec)
			return s.result("step "+args.Step+" accepted", rec.IssuedToken), nil
		})
	srv.AddTool(&mcp.Tool{Name: "ask_roots", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			roots, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			var names []string
			for _, r := range roots.Roots {
				names = append(names, r.Name)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "roots: " + strings.Join(names, ",")}}}, nil
		})
	return srv
}

func (s *httpTokenServer) start(t *testing.T, jsonResponse bool) *httptest.Server {
	srv := s.mcpServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Get("Authorization"))
		if s.methods == nil {
			s.methods = map[string]int{}
		}
		s.methods[r.Method]++
		s.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no entry", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestHTTPTokenServer(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%t", jsonResponse), func(t *testing.T) {
			s := &httpTokenServer{}
			ts := s.start(t, jsonResponse)
			done := make(chan int, 1)
			cs := proxytest.SDKClient(t, func(in io.Reader, out io.Writer) {
				h := &HTTP{URL: ts.URL, Header: [][2]string{{"Authorization", "Bearer s3cret"}}, In: in, Out: out, Grace: 2 * time.Second}
				code, err := h.Run(newRW(t))
				if err != nil {
					t.Error(err)
				}
				done <- code
			})
			seen := proxytest.CheckWorkflow(t, cs)
			if !jsonResponse {
				// A server-to-client request rides on the call's event stream.
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_roots", Arguments: map[string]any{}})
				if err != nil || res.IsError {
					t.Fatalf("ask_roots: %v %+v", err, res)
				}
				if txt := res.Content[0].(*mcp.TextContent).Text; txt != "roots: " {
					t.Fatalf("ask_roots: %q", txt)
				}
			}
			cs.Close()
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit code %d", code)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the proxy did not stop after the client closed")
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			proxytest.CheckServerLog(t, s.calls, seen)
			for _, a := range s.headers {
				if a != "Bearer s3cret" {
					t.Fatalf("a request went without the Authorization header: %q", a)
				}
			}
			if s.methods["DELETE"] != 1 {
				t.Fatalf("the session was not ended (DELETE): %v", s.methods)
			}
		})
	}
}

func TestHTTPErrorsReachTheClient(t *testing.T) {
	s := &httpTokenServer{}
	ts := s.start(t, false)
	var out bytes.Buffer
	h := &HTTP{URL: ts.URL, In: strings.NewReader(`{"jsonrpc":"2.0","id":"i1","method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/x"}` + "\n"), Out: &out}
	code, err := h.Run(newRW(t))
	if err != nil || code != 0 {
		t.Fatalf("code %d err %v", code, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"id":"i1","error":`) || !strings.Contains(lines[0], "HTTP 401") || strings.Contains(lines[0], "s3cret") {
		t.Fatalf("client got %q", out.String())
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &msg); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
}

func TestReadSSE(t *testing.T) {
	stream := ": comment\r\n" +
		"id: p\r\nretry: 250\r\ndata: \r\n\r\n" + // a priming event: nothing to deliver
		"id: 1\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n" +
		"event: ping\ndata: ignored\n\n" +
		"retry: soon\ndata:{\"b\":2}\n\n" + // not digits: ignored
		"id: 3\ndata: {\"c\":3}\n" // no final blank line: not dispatched
	var got []string
	var cur sseCursor
	readSSE(strings.NewReader(stream), 0, &cur, func(data []byte, over *rawjson.Head) {
		if over != nil {
			t.Fatalf("event after %s over the limit", cur.lastID)
		}
		got = append(got, cur.lastID+"|"+string(data))
	})
	want := []string{"1|{\"a\":\n1}", "1|{\"b\":2}"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	// The id of an event never dispatched is not the stream's last.
	if cur.lastID != "1" || cur.retry != 250*time.Millisecond {
		t.Fatalf("cursor %+v, want last id 1, retry 250ms", cur)
	}
}

func newRW(t *testing.T) *proxy.Rewriter {
	t.Helper()
	rw, err := proxy.New(proxy.Config{Server: "wf", Options: carry.Options{Arg: "session_token", MetaKey: "session_token",
		SkipTools: []string{"start_session"}, KeepIf: []string{"session_token", "checkpoint_handle"}}})
	if err != nil {
		t.Fatal(err)
	}
	return rw
}

// Over the HTTP side too, what the proxy will not relay is answered: a
// server answer over --max-message (JSON body or event), a client request
// over it, and a call naming a token no stand-in holds never reach the
// other side, and whoever waits gets an error.
func TestHTTPRefusalsAreAnswered(t *testing.T) {
	const max = 1 << 10
	big := strings.Repeat("A", 2*max)
	var posted []string
	var mu sync.Mutex
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		posted = append(posted, string(body))
		mu.Unlock()
		id := gjson.GetBytes(body, "id").Raw
		answer := `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`
		switch gjson.GetBytes(body, "id").Str {
		case "json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, answer)
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: "+answer+"\n\n")
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer ts.Close()
	unknown := "[session_token deadbeef held by interceptor]"
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":"json","method":"tools/call","params":{"name":"next_step","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"sse","method":"tools/call","params":{"name":"next_step","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"next_step","arguments":{"x":"` + big + `"}}}`,
		`{"jsonrpc":"2.0","id":"stand-in","method":"tools/call","params":{"name":"next_step","arguments":{"session_token":"` + unknown + `"}}}`,
	}, "\n") + "\n"
	rw, err := proxy.New(proxy.Config{Server: "wf", Options: carry.Options{Arg: "session_token", MetaKey: "session_token"}, MaxMessage: max})
	if err != nil {
		t.Fatal(err)
	}
	var out proxytest.SyncBuffer
	h := &HTTP{URL: ts.URL, In: strings.NewReader(in), Out: &out, Grace: 2 * time.Second}
	if code, err := h.Run(rw); err != nil || code != 0 {
		t.Fatalf("code %d err %v", code, err)
	}
	got := map[string]gjson.Result{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		m := gjson.Parse(l)
		got[m.Get("id").Str] = m
	}
	for id, want := range map[string]string{
		"json":     "the server's response was not relayed",
		"sse":      "the server's response was not relayed",
		"long":     "the request was not relayed to the server",
		"stand-in": "deadbeef",
	} {
		m := got[id]
		text := m.Get("error.message").Str
		if id == "stand-in" {
			text = m.Get("result.content.0.text").Str
			if !m.Get("result.isError").Bool() {
				t.Errorf("%s: want a tool error result, got %s", id, m.Raw)
			}
		}
		if !strings.Contains(text, want) {
			t.Errorf("%s: the client got %.200s; want %q", id, m.Raw, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posted) != 2 {
		t.Fatalf("the server got %d POSTs, want 2 (json and sse only): %.300q", len(posted), posted)
	}
}

// TestUnreachableHidesTheAddress: a server the relay cannot reach is
// named to the client (and its model) by its origin, never by its whole
// address, whose path and query may hold a key (issue 29 item 6: Go's
// error spelled the URL out, ?api_key= and all).
func TestUnreachableHidesTheAddress(t *testing.T) {
	ln := httptest.NewServer(http.NotFoundHandler())
	addr := ln.URL
	ln.Close() // nothing listens there now
	for _, u := range []string{addr + "/s/sk_live_51HxSECRET/mcp?api_key=QSECRET", "http://[::1/s/sk_live_51HxSECRET?api_key=QSECRET"} {
		var out bytes.Buffer
		h := &HTTP{URL: u, In: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n"), Out: &out, Grace: time.Second}
		if _, err := h.Run(newRW(t)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), `"id":1,"error":`) || strings.Contains(out.String(), "SECRET") {
			t.Errorf("%s: the client got %q", u, out.String())
		}
	}
}

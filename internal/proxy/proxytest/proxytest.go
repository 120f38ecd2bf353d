// Package proxytest holds what the proxy's tests share: an MCP client (the
// go-sdk's) connected through a proxy, and the checks of a token workflow.
package proxytest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SDKClient connects an MCP client (the go-sdk's) to a proxy through pipes.
func SDKClient(t *testing.T, run func(in io.Reader, out io.Writer)) *mcp.ClientSession {
	t.Helper()
	fromProxyR, toProxyW := serve(run)
	client := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: fromProxyR, Writer: toProxyW}, nil)
	if err != nil {
		t.Fatalf("connect through the proxy: %v", err)
	}
	return cs
}

// serve runs a proxy on pipes and returns the client's ends: what the
// proxy writes, and where the client writes to it.
func serve(run func(in io.Reader, out io.Writer)) (*io.PipeReader, *io.PipeWriter) {
	toProxyR, toProxyW := io.Pipe()
	fromProxyR, fromProxyW := io.Pipe()
	go func() {
		run(toProxyR, fromProxyW)
		fromProxyW.Close()
	}()
	return fromProxyR, toProxyW
}

// CheckWorkflow lists the tools and runs start_session then next_step
// three times, as a model would: never passing a token.
func CheckWorkflow(t *testing.T, cs *mcp.ClientSession) (seen []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := json.Marshal(tools)
	for _, tool := range tools.Tools {
		if tool.Name == "next_step" {
			schema, _ := json.Marshal(tool.InputSchema)
			if strings.Contains(string(schema), "session_token") || !strings.Contains(string(schema), `"step"`) {
				t.Fatalf("next_step schema the model sees: %s", schema)
			}
		}
	}
	calls := []*mcp.CallToolParams{{Name: "start_session", Arguments: map[string]any{}}}
	for _, step := range []string{"plan", "review", "ship"} {
		calls = append(calls, &mcp.CallToolParams{Name: "next_step", Arguments: map[string]any{"step": step}})
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		b, _ := json.Marshal(res)
		if res.IsError {
			t.Fatalf("%s rejected: %s", c.Name, b)
		}
		all = append(all, b...)
	}
	return all
}

type LogRecord struct {
	Event, Tool, Verdict, IssuedToken string
	HasToken                          bool `json:"has_token"`
}

func ReadServerLog(t *testing.T, path string) []LogRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []LogRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			Event       string `json:"event"`
			Tool        string `json:"tool"`
			Verdict     string `json:"verdict"`
			IssuedToken string `json:"issued_token"`
			HasToken    bool   `json:"has_token"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Event == "call" {
			recs = append(recs, LogRecord{r.Event, r.Tool, r.Verdict, r.IssuedToken, r.HasToken})
		}
	}
	return recs
}

// CheckServerLog asserts the server accepted every call and that the
// client saw none of the tokens it issued.
func CheckServerLog(t *testing.T, recs []LogRecord, seen []byte) {
	t.Helper()
	if len(recs) != 4 {
		t.Fatalf("the server logged %d calls, want 4: %+v", len(recs), recs)
	}
	for _, r := range recs {
		if r.Verdict != "ok" {
			t.Fatalf("the server rejected %s: %s", r.Tool, r.Verdict)
		}
		if r.Tool == "next_step" && !r.HasToken {
			t.Fatalf("next_step reached the server without a token")
		}
		if r.IssuedToken == "" {
			t.Fatalf("%s issued no token", r.Tool)
		}
		if bytes.Contains(seen, []byte(r.IssuedToken)) {
			t.Fatalf("the client saw the token issued by %s", r.Tool)
		}
	}
}

// SyncBuffer is a bytes.Buffer that the proxy's goroutines (and a child's
// stderr) may write at once.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// interceptorHTTP builds interceptor-http (the command with the HTTP relay,
// ./cmd/interceptor-http) from the tree under test, once.
var interceptorHTTP = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "interceptor-http-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "interceptor-http")
	cmd := exec.Command(goTool(), "build", "-o", bin, "./cmd/interceptor-http")
	cmd.Dir = bins.repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOPROXY=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{err, string(out)}
	}
	return bin, nil
})

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "go build ./cmd/interceptor-http: " + e.err.Error() + "\n" + e.out
}

// TestTSClient20260728ThroughHTTPRelay (issue 21): the TypeScript SDK's v2
// client, @modelcontextprotocol/client pinned to MCP 2026-07-28, reaches a
// stateless 2026-07-28 token server (the go-sdk's) through
// `interceptor-http proxy --url` and completes the token workflow without
// ever passing a token: it negotiates 2026-07-28 (server/discover), the
// server accepts every call and gets the latest token on each, the client
// sees no token and no token argument, and every POST carries the
// 2026-07-28 headers; there is no GET stream, DELETE or session id.
func TestTSClient20260728ThroughHTTPRelay(t *testing.T) {
	parallel(t)
	prefix := filepath.Join(clients2Dir(t), "clients")
	bin, err := interceptorHTTP()
	if err != nil {
		t.Fatalf("E2E SETUP FAILED: %v", err)
	}
	logPath := filepath.Join(t.TempDir(), "server.log")
	wf, err := wfserver.New(wfserver.Config{Role: wfserver.RoleWF, LogPath: logPath})
	if err != nil {
		t.Fatal(err)
	}
	defer wf.Close()
	srv := wf.MCPServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	var mu sync.Mutex
	var requests []string
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, strings.Join([]string{r.Method, r.Header.Get("Mcp-Protocol-Version"),
			r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name"), r.Header.Get("Mcp-Session-Id")}, " "))
		mu.Unlock()
		h.ServeHTTP(w, r)
	})}
	go hs.Serve(ln)
	defer hs.Close()

	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join(bins.repo, "e2e", "testdata", "tsclient2026.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(prefix, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(dir, "app.mjs"), bin, "proxy", "--server-name", "wf", "--url", "http://"+ln.Addr().String()+"/mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "INTERCEPTOR_STATE_DIR="+filepath.Join(dir, "state"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		err = <-done
	}
	if err != nil {
		t.Fatalf("the TS client failed: %v\nstdout: %s\nstderr: %s", err, tail(stdout.String(), 20), tail(stderr.String(), 40))
	}

	var got struct {
		Version string `json:"version"`
		Tools   []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		Results []struct {
			IsError bool `json:"isError"`
		} `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("the TS client's output: %v\n%s", err, tail(stdout.String(), 20))
	}
	if got.Version != "2026-07-28" {
		t.Errorf("negotiated %q, want 2026-07-28", got.Version)
	}
	for _, tool := range got.Tools {
		var schema struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		json.Unmarshal(tool.InputSchema, &schema)
		if _, ok := schema.Properties["session_token"]; ok || strings.Contains(strings.Join(schema.Required, ","), "session_token") {
			t.Errorf("the client was offered %s with the token argument: %s", tool.Name, tool.InputSchema)
		}
	}
	if len(got.Results) != 4 {
		t.Fatalf("%d results, want 4: %s", len(got.Results), tail(stdout.String(), 5))
	}
	for i, r := range got.Results {
		if r.IsError {
			t.Errorf("call %d was refused: %s", i, tail(stdout.String(), 5))
		}
	}

	recs, err := wfserver.ReadLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	for _, r := range recs {
		if r.Event != "call" {
			continue
		}
		calls++
		if r.Verdict != wfserver.VerdictOK || (r.Tool == "next_step" && !r.HasToken) {
			t.Errorf("the server logged %s: %s %s (token carried: %t)", r.Tool, r.Verdict, r.Reason, r.HasToken)
		}
		if r.IssuedToken == "" || strings.Contains(stdout.String(), r.IssuedToken) || strings.Contains(stderr.String(), r.IssuedToken) {
			t.Errorf("%s: the token it issued reached the client (or none was issued)", r.Tool)
		}
	}
	if calls != 4 {
		t.Errorf("the server logged %d calls, want 4", calls)
	}

	mu.Lock()
	defer mu.Unlock()
	sawDiscover := false
	for _, r := range requests {
		f := strings.Split(r, " ")
		if f[0] != http.MethodPost || f[1] != "2026-07-28" || f[2] == "" || f[4] != "" {
			t.Errorf("a request the server got (method, version, Mcp-Method, Mcp-Name, session): %q", r)
		}
		if f[2] == "tools/call" && f[3] == "" {
			t.Errorf("a tools/call without Mcp-Name: %q", r)
		}
		sawDiscover = sawDiscover || f[2] == "server/discover"
	}
	if !sawDiscover {
		t.Errorf("no server/discover reached the server: %q", requests)
	}
}

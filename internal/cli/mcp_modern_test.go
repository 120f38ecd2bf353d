package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 21: the go-sdk client (v1.8.0) negotiates 2026-07-28 with
// `interceptor mcp --role supervisor` and `--role child` (server/discover,
// no initialize), and lists and calls tools there.
func TestMCPRolesSpeak20260728(t *testing.T) {
	for _, role := range []struct{ name, tool string }{{"supervisor", "pending"}, {"child", "permit"}} {
		t.Run(role.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var errb bytes.Buffer
			code := make(chan int, 1)
			go func() {
				code <- run([]string{"mcp", "--role", role.name, "--state-dir", dir, "--timeout", "1s"}, &IO{In: inR, Out: outW, Err: &errb})
				outW.Close()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
				t.Fatalf("negotiated %q", v)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 {
				t.Fatalf("tools: %v %v", tools, err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: role.tool, Arguments: map[string]any{}})
			if err != nil || len(res.Content) != 1 {
				t.Fatalf("%s: %+v %v", role.tool, res, err)
			}
			cs.Close()
			if c := <-code; c != 0 {
				t.Fatalf("mcp exited %d: %s", c, errb.String())
			}
		})
	}
}

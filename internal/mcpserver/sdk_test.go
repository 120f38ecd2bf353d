package mcpserver

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOfficialClient: the official MCP Go SDK client (test-only: never
// linked into the binary) initializes, lists and calls through this server.
func TestOfficialClient(t *testing.T) {
	q := queue(t)
	srv := &Server{Name: "interceptor-approvals", Version: "test", Tools: SupervisorTools(q, "")}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go srv.Serve(context.Background(), sr, sw)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools: %+v %v", tools, err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pending", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("pending: %+v %v", res, err)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != `{"pending":[]}` {
		t.Fatalf("pending text %q", txt)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "respond", Arguments: map[string]any{"id": "00000000aaaaaaaaaaaa", "allow": true}})
	if err != nil || !res.IsError {
		t.Fatalf("respond to an unknown id: %+v %v", res, err)
	}
}

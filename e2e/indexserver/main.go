// Command indexserver is a stdio MCP server for the end-to-end tests, as
// awkward as m2ux/workflow-server's main: a stable 6-character base32
// session_index that every authenticated tool requires, a dispatch_child
// that returns a second live index, and start_session failing on
// designated restarts (see internal/idxserver). Every call and its verdict
// is appended to --log as JSON lines.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/interceptor-dev/interceptor/e2e/internal/idxserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	logPath := flag.String("log", "", "JSON-lines call log (appended)")
	name := flag.String("name", "", "the name the client configured this server under (logged)")
	failFile := flag.String("fail-restart-file", "", "when this file exists, the instance's second start_session fails")
	flag.Parse()
	s, err := idxserver.New(idxserver.Config{LogPath: *logPath, Name: *name, FailRestartFile: *failFile})
	if err != nil {
		fmt.Fprintln(os.Stderr, "indexserver:", err)
		os.Exit(2)
	}
	defer s.Close()
	if err := s.MCPServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "indexserver:", err)
		os.Exit(1)
	}
}

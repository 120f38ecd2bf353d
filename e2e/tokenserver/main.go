// Command tokenserver is a stdio MCP server for the end-to-end tests.
//
// With --role wf (default) it behaves like a token-authenticated workflow
// server: start_session issues an HMAC-signed session_token, next_step
// requires the latest one and returns the next, in _meta.session_token, in a
// "session_token: <tok>" text line and, with --structured, in
// structuredContent. With --role other it exposes echo(text, session_token?)
// and records whether a token ever reached it. With --role probe it exposes
// the tools named by --tools (comma-separated) and answers every call; its
// log lines carry --name, the name the client configured the server under.
// Every call and verdict is appended to --log as JSON lines.
//
// Every flag can also be set with an environment variable: TOKENSERVER_ROLE,
// TOKENSERVER_LOG, TOKENSERVER_STRUCTURED (1/true), TOKENSERVER_TOKEN_OPTIONAL
// (1/true), TOKENSERVER_AWKWARD (1/true), TOKENSERVER_SECRET.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	envBool := func(k string) bool { b, _ := strconv.ParseBool(os.Getenv(k)); return b }
	role := flag.String("role", envOr("TOKENSERVER_ROLE", wfserver.RoleWF), "wf, other or probe")
	name := flag.String("name", "", "the name the client configured this server under (logged)")
	tools := flag.String("tools", "", "probe role: comma-separated tool names")
	logPath := flag.String("log", os.Getenv("TOKENSERVER_LOG"), "JSON-lines call log (appended)")
	structured := flag.Bool("structured", envBool("TOKENSERVER_STRUCTURED"), "also return structuredContent {session_token, ...}")
	optional := flag.Bool("token-optional", envBool("TOKENSERVER_TOKEN_OPTIONAL"), "leave session_token out of next_step's required schema list (still rejected at run time)")
	awkward := flag.Bool("awkward", envBool("TOKENSERVER_AWKWARD"), "answer like a real workflow server: prose and code mentioning session_token before the real line, TOON and JSON bodies, _meta-only tokens, checkpoints, nested sessions")
	secret := flag.String("secret", os.Getenv("TOKENSERVER_SECRET"), "HMAC secret (default: a fixed test secret)")
	flag.Parse()

	s, err := wfserver.New(wfserver.Config{Role: *role, LogPath: *logPath, Structured: *structured, TokenOptional: *optional, Secret: []byte(*secret),
		Name: *name, Tools: splitList(*tools), Awkward: *awkward})
	if err != nil {
		fmt.Fprintln(os.Stderr, "tokenserver:", err)
		os.Exit(2)
	}
	defer s.Close()
	if err := s.MCPServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "tokenserver:", err)
		os.Exit(1)
	}
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

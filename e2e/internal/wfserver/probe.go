package wfserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RoleProbe is a server that only answers: it exposes the tools named in
// Config.Tools and logs each call with the name the client configured it
// under (Config.Name), so a test can tell which configured server and tool
// a client's spelling of a tool name reached.
const RoleProbe = "probe"

// ProbeArg is the argument a probe tool takes: the caller passes the tool's
// name as the model was offered it.
const ProbeArg = "probe"

func (s *Server) addProbeTools(srv *mcp.Server) {
	for _, name := range s.cfg.Tools {
		srv.AddTool(&mcp.Tool{
			Name:        name,
			Description: "Answer a probe; pass this tool's own name as you see it.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"` + ProbeArg + `":{"type":"string","description":"This tool's name as offered to you."}}}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := decodeArgs(req.Params.Arguments)
			rec := Record{Event: "call", Tool: name, Args: args}
			if err != nil {
				rec.Verdict, rec.Reason = VerdictBadArgument, err.Error()
				s.log(rec)
				return errResult("bad arguments: %v", err), nil
			}
			rec.Verdict = VerdictOK
			s.log(rec)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: fmt.Sprintf("probe answered by server %q, tool %q", s.cfg.Name, name)}}}, nil
		})
	}
}

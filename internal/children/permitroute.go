package children

import (
	"fmt"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// approvalServer is the MCP server name of the permission route; its
// prompt tool is the client's spelling of that server's tool permit
// (mcp__interceptor__permit).
const approvalServer = "interceptor"

// route is the permission route of one chat of a client whose permission
// prompts go to an MCP tool (hooks.Headless.PermitTool): `interceptor mcp
// --role child --chat <chat>` as an MCP server of the chat's own config,
// so every request is tagged with its chat. The same server serves the
// child's human tools (--human-tools), their requests tagged with the chat
// too, and the child's own MCP servers (mcp_config) join it.
type route struct {
	file, config string   // the MCP config file, in the chat dir
	tool         string   // the permission prompt tool
	allowed      []string // the human tools: allowed, as a person answers them anyway
}

func permitRoute(c *hooks.Client, r RunSpec) (route, error) {
	prefix, ok := c.ToolPrefix(approvalServer)
	if !ok {
		return route{}, fmt.Errorf("%s names no MCP tools", c.Display)
	}
	rt := route{file: "mcp.json", tool: prefix + "permit"}
	servers := `{}`
	if r.Child.MCPConfig != "" {
		raw, err := readMCPConfig(r.Child.MCPConfig)
		if err != nil {
			return route{}, err
		}
		if s := gjson.Get(raw, "mcpServers"); s.IsObject() {
			servers = s.Raw
		}
	}
	args := []string{"mcp", "--role", "child", "--state-dir", r.StateDir, "--chat", r.ChatID}
	if r.Child.Approve != "" {
		args = append(args, "--match", r.Child.Approve)
	}
	if r.ApproveTimeout > 0 {
		args = append(args, "--timeout", r.ApproveTimeout.String())
	}
	if r.Child.HumanTools != "" {
		decl, err := humantools.Load(r.Child.HumanTools)
		if err != nil {
			return route{}, err
		}
		for _, t := range decl {
			rt.allowed = append(rt.allowed, prefix+t.Name)
		}
		args = append(args, "--human-tools", r.Child.HumanTools)
	}
	server, err := sjson.Set(`{"type":"stdio"}`, "command", r.Bin)
	if err == nil {
		server, err = sjson.Set(server, "args", args)
	}
	if err == nil {
		servers, err = sjson.SetRaw(servers, approvalServer, server)
	}
	if err == nil {
		rt.config, err = sjson.SetRaw(`{}`, "mcpServers", servers)
	}
	if err != nil {
		return route{}, fmt.Errorf("chat %s: its MCP config: %w", r.ChatID, err)
	}
	return rt, nil
}

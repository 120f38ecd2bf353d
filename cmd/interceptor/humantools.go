package main

import (
	"fmt"
	"os"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/mcpserver"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// childHumanTools loads a --human-tools file and serves its tools on the
// queue q. Claude Code tells the servers it starts its session id; other
// clients' sessions are bound by the deliver post-tool hook.
func childHumanTools(q *approvals.Store, file, chat, key string, timeout, parkTTL time.Duration) ([]mcpserver.Tool, error) {
	decl, err := humantools.Load(file)
	if err != nil {
		return nil, err
	}
	a := &humantools.Asker{
		Queue: q, Client: "mcp", Session: os.Getenv(hooks.PermitSessionEnv), Chat: chat,
		Timeout: timeout, ParkTTL: parkTTL,
		Origin: fmt.Sprintf("mcp human tools pid %d", os.Getpid()),
		Tokens: state.New(q.StateDir), Key: key,
	}
	if a.Session != "" {
		a.Client = "claude-code"
	}
	return mcpserver.HumanTools(decl, a), nil
}

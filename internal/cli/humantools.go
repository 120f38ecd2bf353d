package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/mcpserver"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/spf13/pflag"
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
		a.Client = hooks.PermitClient.Name // the client that told it
	}
	return mcpserver.HumanTools(decl, a), nil
}

// humanFlags are proxy's --human-tools flags.
type humanFlags struct {
	file             string
	timeout, parkTTL time.Duration
}

func (h *humanFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&h.file, "human-tools", "", "also offer the tools this JSON file declares, answered by a person; their calls never reach the server (docs/human-tools.md)")
	fl.DurationVar(&h.timeout, "human-timeout", approvals.DefaultTimeout, "how long a held human tool call waits for its answer (keep it below the client's MCP tool timeout)")
	fl.DurationVar(&h.parkTTL, "park-ttl", humantools.DefaultParkTTL, "how long a parked human tool call waits for its answer")
}

// served loads the --human-tools file for the proxy. The session is
// --session, else the one Claude Code tells its servers; other clients'
// are bound by the deliver post-tool hook.
func (h *humanFlags) served(stateDir *stateDirFlag, session, key string) (*humantools.Served, error) {
	decl, err := humantools.Load(h.file)
	if err != nil {
		return nil, err
	}
	st, err := stateDir.store()
	if err != nil {
		return nil, err
	}
	if session == "" {
		session = os.Getenv(hooks.PermitSessionEnv)
	}
	return &humantools.Served{Decl: decl, Asker: &humantools.Asker{
		Queue: approvals.New(st.Dir), Client: "proxy", Session: session,
		Timeout: h.timeout, ParkTTL: h.parkTTL, Tokens: st, Key: key,
		Origin: fmt.Sprintf("proxy human tools pid %d", os.Getpid()),
	}}, nil
}

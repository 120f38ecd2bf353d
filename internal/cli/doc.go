// Package cli is the command line of interceptor, which sits in the tool-call path of AI coding agents and owns
// the session token of token-authenticated MCP servers, so the model never
// has to type it. README.md says how to use it; this is a map of the code.
//
// Every command is a cobra command; each file holds one command (or a
// family) and its flags, and leaves the work to an internal package:
//
//   - main.go and root.go: the command tree, the INTERCEPTOR_<FLAG>
//     environment, streams. A hook command is built alone (hookCommands):
//     it runs twice per tool call and must start fast.
//   - hook.go: inject, capture and clear, the token hooks (internal/hooks,
//     internal/state, internal/lifecycle). A hook never fails the agent:
//     any problem is one stderr line and exit 0.
//   - approve.go: the approve hook (internal/approvals); deliver.go: the
//     human tools' deliver hook (internal/humantools).
//   - proxy.go: proxy mode (internal/proxy); http.go the parts of proxy
//     --url, inbox and auth that link net/http, which only
//     cmd/interceptor-http passes in (internal/cli/httpcmd).
//   - install.go, doctor.go, gc.go: install, uninstall, doctor, gc
//     (internal/install, internal/doctor, internal/state).
//   - approvals.go and answer.go: the supervisor's side of the queue;
//     mcp.go: interceptor mcp (internal/mcpserver); humantools.go: loading
//     --human-tools; children.go: child agents (internal/children).
//   - token.go: inspecting and repairing held tokens by hand; demo.go,
//     version.go.
//   - factory.go: the --state-dir flag, resolved once, and the token store
//     and approval queue opened from it.
package cli

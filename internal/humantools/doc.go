// Package humantools serves tools the model calls and a person answers:
// each call becomes an input request in the approval queue
// (internal/approvals), which a person answers from the CLI or a parent
// agent over MCP. A held tool's call waits for the answer; a parked tool's
// call returns at once and the answer reaches the model at the start of the
// session's next turn, exactly once (Deliver, run by the client's prompt
// hook `interceptor deliver`, or prepended to a child chat's next prompt).
//
// The files: decl.go reads the declarations (Tool, Load); ask.go asks
// (Asker.Call), delivers the answers (Deliver, Context), ties a parked call
// to its session (Bind) and ends a session's questions (EndSession);
// deliver_child.go is Deliver for a child session's runner. The tools are
// served on their own by interceptor mcp --human-tools (internal/mcpserver)
// and beside a proxied server's by interceptor proxy --human-tools
// (internal/proxy).
package humantools

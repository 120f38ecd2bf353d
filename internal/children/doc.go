// Package children runs child agents of the clients that can run headless
// (hooks.Client.Headless) for a parent: a person at the CLI or a
// parent agent through `interceptor mcp --role supervisor`.
//
// Layout under <state dir>/children/ (dirs 0700, files 0600, never symlinks):
//
//	.lock                   serializes creating children (unique names)
//	<child id>/child.json   the child: client, working dir, model, env, the
//	                        client's own session id (for resume), chat count
//	<child id>/.lock        serializes changes of child.json
//	<child id>/chat-<n>/    one chat (n from 1): prompt.json (what to run),
//	                        events.jsonl (the event log), runner.json (pids),
//	                        runner.lock (held by the runner while it lives),
//	                        runner.log (the runner's and the client's stderr)
//
// A chat is owned by a detached runner process (`interceptor children
// runner`), never by the process that started it: a supervisor can exit and
// come back, and every event is still in the log. Readers take no lock and
// wake on the chat dir's changes.
//
// The files:
//
//   - store.go is the children (Store, Child: Create, Get, List);
//     chat.go a chat (Chat: its prompt, runner and state); eventlog.go its
//     event log, read from the tail or by bisection on seq, never whole
//     (Total, Events); events.go the normalized events a client's output
//     becomes (Normalized); runner.go starts a chat's runner, runs the
//     client and cancels it; poll.go waits on a chat's events and
//     its pending approvals for a parent (a PollResult, encoded only where
//     it leaves the process: the poll tool, `children show`).
//   - client.go runs a client from its description (hooks.Client.Headless:
//     its command line, output format and approval route) and picks the
//     Normalizer of its output; claude.go, codex.go, gemini.go and
//     opencode.go read the four output formats into events;
//     permitroute.go wires a chat's permission-prompt MCP server.
//   - approveroute.go refuses a hook client child whose approve hook is not
//     installed where its client reads it; humantools.go hands a child's
//     next chat the answers to its parked human tool calls.
//   - view.go shows events and approvals to a parent with stand-ins for
//     tokens and visible control characters: JSON text, one string, or a
//     poll's typed result field by field; describe.go the lines
//     `children follow` prints for a person (DescribeEvent,
//     DescribePending).
//   - proc_*.go are process groups and liveness (Unix; /proc on Linux).
package children

// Package cli is interceptor's command line: every command of interceptor
// and interceptor-http, built with cobra over a Factory (the injected I/O,
// the version, and the parts that link net/http, which only
// cmd/interceptor-http passes in). Each command reads its flags into an
// options struct and leaves the work to an internal package; tests drive
// commands directly through Main with their own streams.
//
//   - root.go: the command tree, Main, the INTERCEPTOR_<FLAG> environment
//     (hookrun.EnvFlag), usage errors (exit 2). A hook command is built alone
//     (hookCommands): it runs twice per tool call and must start fast.
//   - factory.go: the --state-dir flag, resolved once, and the value store
//     and approval queue opened from it.
//   - hook.go: inject, capture, clear and deliver, whose flags feed the one
//     hook harness (internal/hookrun); approve.go: approve on the same
//     harness, under the fail-closed policy of internal/approvals;
//     carryflags.go: the flags of the handle options (carry.Table) that
//     the hooks and proxy take and install passes on.
//   - proxy.go, proxy_headers.go, proxy_oauth.go: proxy mode
//     (internal/proxy); http.go: what proxy --url, inbox.go and auth.go hand
//     to the parts that link net/http (internal/cli/httpcmd); inbox_url.go:
//     inbox url, and the record a serving inbox keeps in the state dir
//     (AnnounceInbox, BusyPort); relay.go: relay, one inbox for many
//     machines over NATS (internal/relay, run through HTTP.NATSRelay), and
//     the NATS flags it shares with inbox --nats (NATSOptions).
//   - install.go, install_help.go, doctor.go, gc.go: install, uninstall,
//     doctor, gc (internal/install, internal/doctor, internal/state);
//     install_help_groups.go: install's help, the common case first, then
//     its flags in groups; uninstall_all.go: uninstall --all (every
//     client's wiring, install.Wired) and --purge (the state dir).
//   - approvals.go and answer.go: the supervisor's side of the queue (the
//     terminal of approvals watch is internal/watch); approvals_rules.go:
//     approvals rules, the standing rules (list, add, revoke); mcp.go:
//     interceptor mcp (internal/mcpserver); humantools.go: loading
//     --human-tools; children.go: child agents (internal/children).
//   - token.go: inspecting and repairing held values by hand; demo.go,
//     version.go; clients.go: the help texts' lists of clients, from their
//     descriptions in internal/hooks.
//
// internal/cli/clitest runs the testscripts in
// cmd/interceptor/testdata/script against a binary's Main.
package cli

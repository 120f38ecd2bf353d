// Package hookrun is the one harness every hook command runs on (inject,
// capture, clear, approve and deliver) in every binary: interceptor's
// cobra commands and interceptor-hook's lean main alike.
//
// A hook runs twice per tool call in the agent's critical path. The
// harness reads the event from stdin (capped at hooks.MaxPayload), parses
// it, runs the command, writes the client's reply on one line, appends a
// line to the --debug-log, and bounds the whole run with a watchdog. It
// never blocks the agent by accident: a problem is at most one stderr line
// (Run's error, which its caller prints) and exit 0. A hook that fails open
// (the handle hooks, deliver) then prints nothing on stdout and the call
// proceeds unchanged; one that fails closed (approve, whose policy is in
// internal/approvals) denies the call in the client's shape.
//
//   - run.go: Run, the harness; Hook says what one command does in it.
//   - token.go: inject, capture, clear and deliver on internal/lifecycle,
//     and the handle options' reading (--arg, --handles and the rest).
//   - deliver.go: deliver's work on internal/humantools.
//   - approve.go: approve on approvals.Gate.
//   - hookflags.go: HookFlags, the hook commands' flags that are no handle
//     option (those are carry.Table's), from which internal/cli's cobra
//     commands and argv.go both register them.
//   - main.go and argv.go: interceptor-hook's main, which reads the hook
//     commands' flags without cobra: HookFlags and carry.Table, the
//     environment by env.go's rules.
//   - env.go: which flags INTERCEPTOR_<FLAG> may set, and how (EnvFlag,
//     ApplyEnv), for internal/cli's root and interceptor-hook alike.
package hookrun

// Package doctor checks what is installed for each client (Run): that
// interceptor's hooks are all there and run an existing binary, that their
// matchers match the server's tools as the client spells them, that servers
// the client names alike are refused, that no other hook races inject, that
// the client lets an approve hook wait as long as it asks and gates the
// shell, that Codex trusts the hooks, that a held human tool returns before
// the client's MCP tool timeout; then the state dirs. What a client does is
// read from its hooks.Client, what is installed through install's read side
// (install.HookFiles, FindHooks, ReadShim, ...): doctor has no client
// switches and no config parser of its own.
//
// The files:
//
//   - doctor.go: the Report, Run, the checks of a JSON hook config and of
//     the hooks in it; configured.go: that a hooked server is one the
//     client has configured (a typo in --server never fires), and binFix,
//     the command that puts back a missing binary.
//   - options.go: what a server's hooks carry, that its inject and capture
//     hooks were given the same options, and the --handles file they read.
//   - proxied.go: the servers that run through interceptor's proxy instead
//     (install --proxy): the binary is there, no secret sits in the relay's
//     arguments, no hooks run beside it.
//   - shim.go: the OpenCode and Kilo plugin shim; scripts.go: Cline's hook
//     scripts and the user's own files beside them.
//   - trust.go: Codex's trust in each hook and in the project.
//   - deliver.go: a human tools server's deliver hooks; humantimeout.go:
//     whether a held human tool call returns before the client gives up.
//   - state.go: the state dirs and the tokens they hold; oauth.go: the
//     relay's OAuth authorizations kept there (whether each can be used,
//     never a token).
package doctor

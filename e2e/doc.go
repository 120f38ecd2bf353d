// Package e2e runs interceptor under the real AI coding clients (Claude Code,
// Codex CLI, Gemini CLI, OpenCode) against a scripted fake model and a
// token-authenticated MCP server, all on loopback inside a private network
// namespace. The tests are behind the e2e build tag:
//
//	go test -tags e2e -count=1 -timeout 20m ./e2e/...
//
// TestMain installs the pinned client versions from the npm registry into a
// cache (E2E_CLIENT_CACHE, default $HOME/.cache/interceptor-e2e), builds
// interceptor and the token server, then re-runs the test binary inside
// `unshare -rn` with only loopback up. A client that cannot be installed
// fails the run; it is never skipped. E2E_KEEP=1 keeps every scenario's
// files (configs, logs, recorded model requests) and prints where.
// E2E_HOOK=PATH makes the hooks run PATH instead of interceptor: with
// testdata/loghook.sh (a pass-through that only logs) every scenario must
// fail, which checks that the assertions can fail. E2E_INTERCEPTOR_BIN=PATH
// tests that binary instead of building ./cmd/interceptor.
//
// Each client's awkward_nested scenario (hooks and proxy) plays issue 11's
// conversation (fakemodel.NestedScript) against the token server's --awkward
// mode, named wf-server: results that mention session_token before the real
// line, a _meta-only token, a checkpoint tool taking a handle and the token,
// and a nested session the server verifies. TestToolNames observes how each
// client spells MCP tool names and compares with
// internal/hooks/testdata/names/observed.json (E2E_UPDATE_NAMES=1 rewrites
// it); it runs its own logging hook, so E2E_HOOK does not change it.
//
// The pieces live in subpackages: tokenserver (the MCP server binary),
// fakemodel (the model APIs), internal/wfserver and internal/verify.
package e2e

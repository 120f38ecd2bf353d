// Package install wires interceptor into the AI coding clients' own config
// files, as internal/hooks describes each client (hooks.Client): it merges
// the hooks into their JSON hook configs, writes the OpenCode and Kilo
// plugin shim and Cline's hook scripts, and takes them out again. Its read
// side (read.go) tells internal/doctor, and children's approve route, what
// is installed, read as install reads it.
//
// Edits are surgical: the user's bytes outside the edit, comments included,
// never change, running install twice changes nothing, uninstall takes out
// exactly what install added. A file in a syntax the client is not known to
// read (comments, a trailing comma: hooks.Syntax) is refused, not edited. Before
// the first change to an existing file a copy is kept next to it
// (FILE.interceptor-backup); each run holds a lock beside the file from
// read to write, and every write goes to a temp file in the same dir,
// renamed over the old one with the old mode.
//
// The files:
//
//   - install.go: Install, Uninstall, finding, locking and writing config
//     files, the --dry-run diff.
//   - hookfile.go: a client's JSON hook config; jsonedit.go: the editor, on
//     hujson's syntax tree; groups.go: finding, merging and removing hooks;
//     command.go: the hook command lines; hookbin.go: the binary they run,
//     interceptor-hook beside interceptor when it is of the same build
//     (HookBin).
//   - shim.go: the plugin shim (hooks.Plugin); opencode_version.go: the
//     plugin API of the OpenCode installed, which the shim is written for
//     (OpenCodeMajor), and a shim's own (ShimAPI); scripts.go: the hook
//     scripts of a client that runs hook files (hooks.Scripts).
//   - deliver.go: the human tools server's deliver hooks (--deliver).
//   - codextrust.go: Codex's trust hash of a hook and the trust records in
//     its config.toml; codextrust_install.go: --trust, which writes them.
//   - read.go: what doctor reads (HookFiles, FindHooks, ReadShim,
//     ScriptPath, OtherScripts); mcpservers.go: the MCP servers a client
//     has configured (MCPServers, ConfiguredServers); codextrust.go's Trust:
//     Codex's record of a hook; approveroute.go: the approve hooks a
//     headless child's calls would reach (FindApproveHooks).
//   - untrust.go: uninstall's taking back of the trust records --trust
//     wrote; wired.go: every server interceptor wired into a client, hooks
//     and proxied entries, as uninstall --all takes them out (Wired).
//   - proxy.go: install --proxy, which rewrites a server's entry so the
//     client starts interceptor proxy (a command) or interceptor-http proxy
//     (an address) instead, and puts it back; proxy_toml.go: the same for
//     Codex's config.toml; proxy_oauth.go: a Claude Code entry's OAuth
//     block, taken over by the relay; urlsecret.go: the address kept in the
//     entry's environment, never in the relay's arguments.
package install

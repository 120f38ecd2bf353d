package install

import (
	"encoding/csv"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// HookOptions are the hook options install writes into the commands it
// installs: the handle options (carry.Table) and the state dir. Zero
// values mean "the hook's default" and are left out; a list is nil for the
// default, empty for explicitly none.
type HookOptions struct {
	// Options are the handle options given to install. NotServers are
	// configured servers whose tool names collide with the server's under
	// the client (hooks.Client.Collisions); install finds them in the
	// client's MCP config. Servers is never set: each hook names its own.
	carry.Options
	StateDir string // made absolute by the caller
}

// args are the options inject and capture share, as command-line words in
// carry.Table's order, then the state dir. Redact is handled per client
// (capture only, and only where the client can use it).
func (o HookOptions) args() []string {
	return o.argsFor(func(opt *carry.Option) bool { return opt.Takers&carry.Inject != 0 && opt.Takers&carry.Capture != 0 })
}

// captureArgs are the options only capture takes (--redact), as
// command-line words: written where the client can use them (its capture
// can rewrite what the model reads).
func (o HookOptions) captureArgs() []string {
	return o.Options.Args(func(opt *carry.Option) bool { return opt.Takers == carry.Capture })
}

// argsFor are the options keep selects, then the state dir.
func (o HookOptions) argsFor(keep func(*carry.Option) bool) []string {
	out := o.Options.Args(keep)
	if o.StateDir != "" {
		out = append(out, "--state-dir", o.StateDir)
	}
	return out
}

// hookArgv is the full argv of one hook command.
func hookArgv(bin, sub, client, server string, extra []string) []string {
	argv := []string{bin, sub, "--client", client, "--server", server}
	return append(argv, extra...)
}

// shellJoin quotes words for the shell the clients run hook commands with
// (sh -c on Unix; on Windows the clients use cmd or Git Bash, where double
// quotes work for both).
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return w
	}
	if runtime.GOOS == "windows" {
		return `"` + strings.ReplaceAll(w, `"`, `\"`) + `"`
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// shellSplit splits a command line the way sh does for plain words, single
// and double quotes and backslashes (no expansions). ok is false for what it
// cannot split (unbalanced quotes).
func shellSplit(s string) (words []string, ok bool) {
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 && runtime.GOOS != "windows" {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			in = true
		case c == '\\' && i+1 < len(s) && runtime.GOOS != "windows":
			i++
			cur.WriteByte(s[i])
			in = true
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, true
}

// HookCommand is an interceptor hook command found in a config.
type HookCommand struct {
	Bin     string   // the binary as written
	Sub     string   // inject, capture, clear, approve or deliver
	Servers []string // its --server values
	Argv    []string
}

// parseHookCommand recognizes a command that runs interceptor as a hook:
// the binary's name starts with "interceptor" and the first word after it is
// inject, capture, clear or approve (approve has no --server: install ties
// it to a server by where it stands, see ownedApprove).
func parseHookCommand(cmd string) (HookCommand, bool) {
	argv, ok := shellSplit(cmd)
	if !ok || len(argv) < 2 {
		return HookCommand{}, false
	}
	base := filepath.Base(strings.ReplaceAll(argv[0], `\`, "/"))
	if !strings.HasPrefix(strings.ToLower(base), "interceptor") {
		return HookCommand{}, false
	}
	switch argv[1] {
	case "inject", "capture", "clear", "approve", "deliver":
	default:
		return HookCommand{}, false
	}
	h := HookCommand{Bin: argv[0], Sub: argv[1], Argv: argv}
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		var v string
		switch {
		case a == "--server" && i+1 < len(argv):
			v = argv[i+1]
			i++
		case strings.HasPrefix(a, "--server="):
			v = strings.TrimPrefix(a, "--server=")
		default:
			continue
		}
		if vals, err := csv.NewReader(strings.NewReader(v)).Read(); err == nil {
			h.Servers = append(h.Servers, vals...)
		} else {
			h.Servers = append(h.Servers, v)
		}
	}
	return h, true
}

// ApproveTimeout is how long an approve hook's command waits for a
// decision: its --timeout, else approve's default (--timeout never comes
// from the environment). ok is false for another subcommand or a --timeout
// that does not parse.
func (h HookCommand) ApproveTimeout() (d time.Duration, ok bool) {
	if h.Sub != "approve" {
		return 0, false
	}
	v := ""
	for i := 2; i < len(h.Argv); i++ {
		switch a := h.Argv[i]; {
		case a == "--timeout" && i+1 < len(h.Argv):
			v = h.Argv[i+1]
			i++
		case strings.HasPrefix(a, "--timeout="):
			v = strings.TrimPrefix(a, "--timeout=")
		}
	}
	if v == "" {
		return approvals.DefaultTimeout, true
	}
	d, err := time.ParseDuration(v)
	return d, err == nil
}

// serves reports whether the hook is for exactly this one server: the hooks
// install writes. Hand-written hooks for several servers are left alone.
func (h HookCommand) serves(server string) bool {
	return len(h.Servers) == 1 && h.Servers[0] == server
}

// installsApprove reports whether the hook is an approve hook in the form
// install writes (approveArgv) for this binary and client: bin approve
// --client C, then only --match, --timeout and --state-dir, in that order.
// An approve hook written by hand (other flags, another order or binary) is
// the user's, and install leaves it alone. interceptor and interceptor-hook
// side by side are one binary here (HookBin): a reinstall that moves the
// hooks to interceptor-hook still knows the approve hook it wrote.
func (h HookCommand) installsApprove(bin, client string) bool {
	a := h.Argv
	if len(a) < 4 || !sameInstall(a[0], bin) || a[1] != "approve" || a[2] != "--client" || a[3] != client {
		return false
	}
	a = a[4:]
	for _, flag := range []string{"--match", "--timeout", "--state-dir"} {
		if len(a) >= 2 && a[0] == flag {
			a = a[2:]
		}
	}
	return len(a) == 0
}

// clientFlag is the hook's --client value as install writes it (the third
// word), "" if none.
func (h HookCommand) clientFlag() string {
	if len(h.Argv) >= 4 && h.Argv[2] == "--client" {
		return h.Argv[3]
	}
	return ""
}

// ApproveOptions ask install for an `interceptor approve` pre-tool hook in
// front of inject (docs/approvals.md).
type ApproveOptions struct {
	On      bool
	Timeout time.Duration // approve's --timeout; 0: approve's default, left out
	Match   string        // approve's --match; "": the server's tools
	// Shell gates the client's shell tool (hooks.Client.ShellTool) as
	// well, so a child's `interceptor approvals allow` waits for the
	// supervisor too (hookfile.go: a group of its own; the plugin shim: in
	// APPROVE_ARGS's --match).
	Shell bool
}

// approveArgv is the approve hook's command line. match is what --match
// gets ("" = none: the client's matcher already picks the server's tools).
func approveArgv(o Options, client, match string) []string {
	argv := []string{o.hookBin(), "approve", "--client", client}
	if o.Approve.Match != "" {
		match = o.Approve.Match
	}
	// The plugin shim runs approve on every tool: its --match takes the
	// shell in. Hook configs get a group of their own (hookfile.go).
	if c, ok := hooks.FindClient(client); ok && o.Approve.Shell && c.Layout == hooks.Plugin && match != "" && c.ShellTool != "" {
		match = "(?:" + match + ")|" + shellMatcher(c)
	}
	if match != "" {
		argv = append(argv, "--match", match)
	}
	if o.Approve.Timeout > 0 {
		argv = append(argv, "--timeout", shortDuration(o.Approve.Timeout))
	}
	if o.Hook.StateDir != "" {
		argv = append(argv, "--state-dir", o.Hook.StateDir)
	}
	return argv
}

// approveHookTimeout is the client hook timeout an approve hook needs, in
// the client's unit (unit: time.Second or time.Millisecond), rounded up.
func approveHookTimeout(o Options, unit time.Duration) int {
	d := approvals.MinHookTimeout(o.Approve.Timeout)
	return int((d + unit - 1) / unit)
}

// shortDuration spells d as time.ParseDuration reads it, without zero
// trailing units: 10m, not 10m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// sharedServers adds server to the servers one hook command serves (a
// shim's ARGS, a hook script) and gives the --not-server names it carries:
// those it carried and those given, less the servers it serves (a server's
// own --not-server would refuse its own tools). collide: some were left
// out for that, so servers it serves collide with each other.
func sharedServers(servers []string, server string, carried, given []string) (_, notServers []string, collide bool) {
	if !slices.Contains(servers, server) {
		servers = append(servers, server)
	}
	for _, n := range given {
		if !slices.Contains(carried, n) {
			carried = append(carried, n)
		}
	}
	notServers = slices.DeleteFunc(slices.Clone(carried), func(n string) bool { return slices.Contains(servers, n) })
	if len(notServers) == 0 {
		notServers = nil // none: no --not-server at all (an empty list is written "--not-server=")
	}
	return servers, notServers, len(notServers) < len(carried)
}

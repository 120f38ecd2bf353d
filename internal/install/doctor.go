package install

import (
	"fmt"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/tidwall/gjson"
)

// Levels of a doctor finding.
const (
	OK   = "ok"
	Info = "info"
	Warn = "warn"
	Fail = "fail"
)

// Finding is one line of the doctor's report.
type Finding struct {
	Level   string `json:"level"`
	Message string `json:"message"`
}

// HookReport is one interceptor hook found in a config.
type HookReport struct {
	Event   string   `json:"event"`
	Kind    string   `json:"kind"` // inject, capture, clear
	Servers []string `json:"servers"`
	Command string   `json:"command"`
	Bin     string   `json:"bin"`
	BinOK   bool     `json:"bin_ok"`
	Trust   string   `json:"trust,omitempty"` // Codex: trusted, untrusted, modified, disabled, unknown
}

// ConfigReport is one config file that exists.
type ConfigReport struct {
	Scope Scope        `json:"scope"`
	Path  string       `json:"path"`
	Hooks []HookReport `json:"hooks"`
}

// ClientReport is what doctor found for one client.
type ClientReport struct {
	Client   string         `json:"client"`
	Configs  []ConfigReport `json:"configs"`
	Findings []Finding      `json:"findings"`
}

// ServerState is the tokens held for one server.
type ServerState struct {
	Server          string  `json:"server"`
	Sessions        int     `json:"sessions"`
	Current         bool    `json:"current"`
	OldestAgeSecond float64 `json:"oldest_age_seconds,omitempty"`
	NewestAgeSecond float64 `json:"newest_age_seconds,omitempty"`
	StaleTemps      int     `json:"stale_temp_files,omitempty"`
}

// StateReport is what doctor found in one state dir.
type StateReport struct {
	Dir      string        `json:"dir"`
	Exists   bool          `json:"exists"`
	Safe     bool          `json:"safe"`
	Sessions int           `json:"sessions"`
	Servers  []ServerState `json:"servers"`
	Findings []Finding     `json:"findings"`
}

// Report is the whole doctor's report. OK is false when any finding fails.
type Report struct {
	OK        bool           `json:"ok"`
	Clients   []ClientReport `json:"clients"`
	StateDirs []StateReport  `json:"state_dirs"`
}

// StaleAfter is the session age doctor calls stale (and suggests gc for).
const StaleAfter = 7 * 24 * time.Hour

// Doctor checks every client config it can find (user scope and the
// project dir's), and the state dirs: the default one (stateDir) and any a
// hook names with --state-dir.
func Doctor(env Env, stateDir string, now time.Time) Report {
	r := Report{OK: true}
	dirs := []string{}
	if stateDir != "" {
		dirs = append(dirs, stateDir)
	}
	for _, c := range hooks.Clients {
		cr := doctorClient(env, c)
		for _, c := range cr.Configs {
			for _, h := range c.Hooks {
				if d := flagValue(h.Command, "--state-dir"); d != "" && !slices.Contains(dirs, d) {
					dirs = append(dirs, d)
				}
			}
		}
		r.Clients = append(r.Clients, cr)
	}
	for _, d := range dirs {
		r.StateDirs = append(r.StateDirs, doctorState(d, now))
	}
	for _, c := range r.Clients {
		for _, f := range c.Findings {
			r.OK = r.OK && f.Level != Fail
		}
	}
	for _, s := range r.StateDirs {
		for _, f := range s.Findings {
			r.OK = r.OK && f.Level != Fail
		}
	}
	return r
}

func flagValue(cmd, flag string) string {
	argv, _ := shellSplit(cmd)
	for i, a := range argv {
		if a == flag && i+1 < len(argv) {
			return argv[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

func (cr *ClientReport) add(level, format string, args ...any) {
	cr.Findings = append(cr.Findings, Finding{level, fmt.Sprintf(format, args...)})
}

// doctorPath is a file doctor reads for a client.
type doctorPath struct {
	scope Scope
	path  string
}

// doctorPaths are the files doctor reads for a client: install's, plus
// any other project file the client reads hooks from.
func doctorPaths(env Env, c *hooks.Client) []doctorPath {
	out := []doctorPath{{User, env.configPath(c, User)}, {Project, env.configPath(c, Project)}}
	if local := env.resolve(c.Local); local != "" {
		out = append(out, doctorPath{Project, local})
	}
	// Run from the home dir, the project's files are the user's.
	if filepath.Clean(out[1].path) == filepath.Clean(out[0].path) {
		out = append(out[:1], out[2:]...)
	}
	return out
}

func doctorClient(env Env, c *hooks.Client) ClientReport {
	cr := ClientReport{Client: c.Name, Configs: []ConfigReport{}, Findings: []Finding{}}
	var all []foundHook // every command hook of the client, for the race check
	type mine struct {
		found  foundHook
		report *HookReport
		path   string
		scope  Scope
	}
	var ours []mine
	if c.Layout == hooks.Scripts {
		for _, scope := range []Scope{User, Project} {
			if conf, found := doctorScripts(&cr, env, c, scope); found {
				cr.Configs = append(cr.Configs, conf)
			}
		}
		if len(cr.Configs) == 0 {
			cr.add(Info, "no hooks found (%s)", strings.Join(pathsOf(env, c), ", "))
		} else {
			doctorOtherScripts(&cr, env, c)
		}
		return cr
	}
	for _, p := range doctorPaths(env, c) {
		data, err := os.ReadFile(p.path)
		if err != nil {
			if !os.IsNotExist(err) {
				cr.add(Fail, "%s: %v", p.path, err)
			}
			continue
		}
		conf := ConfigReport{Scope: p.scope, Path: p.path, Hooks: []HookReport{}}
		if c.Layout == hooks.Plugin {
			conf.Hooks = doctorShim(&cr, p.path, string(data))
			if shim, ok := readShim(string(data)); ok && len(shim.approveArgs) > 0 {
				doctorShellGate(&cr, c, approveMatches(shim.approveArgs, c.ShellTool))
			}
			if shim, ok := readShim(string(data)); ok {
				configured, _ := configuredServers(env, c)
				for _, s := range shim.servers() {
					// The shim's own servers are not refused by its ARGS.
					doctorCollisions(&cr, c, s, slices.DeleteFunc(slices.Clone(configured), func(n string) bool {
						return n != s && slices.Contains(shim.servers(), n)
					}), append([]string{shim.bin}, shim.args...), "the shim "+p.path)
				}
			}
			cr.Configs = append(cr.Configs, conf)
			continue
		}
		found, err := findHooks(p.path, data, true, c)
		if err != nil {
			cr.add(Fail, "%v", err)
			cr.Configs = append(cr.Configs, conf)
			continue
		}
		all = append(all, found...)
		for _, f := range found {
			if f.command.Sub == "" {
				continue
			}
			conf.Hooks = append(conf.Hooks, hookReport(f))
		}
		cr.Configs = append(cr.Configs, conf)
		k := 0
		for _, f := range found {
			if f.command.Sub != "" {
				ours = append(ours, mine{f, &cr.Configs[len(cr.Configs)-1].Hooks[k], p.path, p.scope})
				k++
			}
		}
	}
	doctorHumanTimeouts(&cr, env, c) // held human tools need no hooks
	if len(cr.Configs) == 0 {
		cr.add(Info, "no config found (%s)", strings.Join(pathsOf(env, c), ", "))
		return cr
	}
	servers := map[string][]mine{}
	for _, m := range ours {
		for _, s := range m.found.command.Servers {
			servers[s] = append(servers[s], m)
		}
		if !m.report.BinOK {
			if filepath.IsAbs(m.report.Bin) {
				cr.add(Fail, "%s: %s hook runs %s, which does not exist or is not executable", m.path, m.found.event, m.report.Bin)
			} else {
				cr.add(Warn, "%s: %s hook runs %q by name: a client started from a GUI may not find it on PATH (reinstall to use the absolute path)", m.path, m.found.event, m.report.Bin)
			}
		}
	}
	if c.Layout != hooks.Plugin && len(ours) == 0 {
		cr.add(Info, "no interceptor hooks in %s", strings.Join(existing(cr.Configs), ", "))
	}
	names := make([]string, 0, len(servers))
	for s := range servers {
		names = append(names, s)
	}
	slices.Sort(names)
	configured, problems := configuredServers(env, c)
	for _, p := range problems {
		cr.add(Warn, "cannot read the MCP servers %s has configured: %s", c.Display, p)
	}
	for _, s := range names {
		for _, m := range servers[s] {
			doctorMatcher(&cr, c, s, m.found, m.path)
			doctorCollisions(&cr, c, s, configured, m.found.command.Argv, m.found.event+" hook in "+m.path)
		}
		doctorServer(&cr, c, s, func() (kinds []string, paths []string) {
			for _, m := range servers[s] {
				kinds = append(kinds, m.found.command.Sub)
				if !slices.Contains(paths, m.path) {
					paths = append(paths, m.path)
				}
			}
			return
		})
		if c.RacesInput {
			doctorRace(&cr, c, s, all)
		}
	}
	approveOn, shellGated := false, false
	for _, m := range ours {
		if m.found.command.Sub == "approve" {
			doctorApproveTimeout(&cr, c, m.found, m.path)
			approveOn = true
			shellGated = shellGated || gatesTool(c, m.found, c.ShellTool)
		}
	}
	if approveOn {
		doctorShellGate(&cr, c, shellGated)
	}
	if c.TrustStep != "" {
		for i := range ours {
			doctorCodexTrust(&cr, env, c, ours[i].found, ours[i].report, ours[i].path, ours[i].scope)
		}
	}
	return cr
}

func pathsOf(env Env, c *hooks.Client) []string {
	var out []string
	for _, p := range doctorPaths(env, c) {
		out = append(out, p.path)
	}
	return out
}

func existing(cs []ConfigReport) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

func hookReport(f foundHook) HookReport {
	h := HookReport{Event: f.event, Kind: f.command.Sub, Servers: f.command.Servers, Command: f.raw, Bin: f.command.Bin}
	if h.Servers == nil {
		h.Servers = []string{}
	}
	h.BinOK = binOK(h.Bin)
	return h
}

func binOK(bin string) bool {
	if !filepath.IsAbs(bin) {
		return false
	}
	fi, err := os.Stat(bin)
	if err != nil || fi.IsDir() {
		return false
	}
	return isWindows() || fi.Mode().Perm()&0o111 != 0
}

// doctorServer checks that a server has every hook its client needs.
func doctorServer(cr *ClientReport, c *hooks.Client, server string, installed func() ([]string, []string)) {
	kinds, paths := installed()
	if onlyDeliver(kinds) {
		doctorDeliver(cr, c, server, len(kinds), paths)
		return
	}
	want := []string{"inject", "capture"}
	if c.SessionEnd != "" {
		want = append(want, "clear")
	}
	var missing []string
	for _, k := range want {
		if !slices.Contains(kinds, k) {
			missing = append(missing, k)
		}
	}
	counts := map[string]int{}
	for _, k := range kinds {
		counts[k]++
	}
	switch {
	case len(missing) == 0:
		cr.add(OK, "server %q: %s installed in %s", server, strings.Join(want, ", "), strings.Join(paths, ", "))
	case slices.Contains(missing, "inject") || slices.Contains(missing, "capture"):
		cr.add(Fail, "server %q: no %s hook (in %s); run: interceptor install %s --server %s", server, strings.Join(missing, " or "), strings.Join(paths, ", "), c.Name, server)
	default:
		cr.add(Warn, "server %q: no %s clear hook: ended sessions keep their tokens until 'interceptor gc'", server, c.SessionEnd)
	}
	for _, k := range want {
		if counts[k] > 1 {
			cr.add(Warn, "server %q: %d %s hooks (in %s); they all run on every call", server, counts[k], k, strings.Join(paths, ", "))
		}
	}
}

// doctorMatcher fails a hook whose matcher cannot match the server's tools
// as the client names them (hooks.Client.ToolPrefix): it never runs.
func doctorMatcher(cr *ClientReport, c *hooks.Client, server string, f foundHook, path string) {
	prefix, ok := c.ToolPrefix(server)
	if f.matcher == nil || !ok || *f.matcher == "" || *f.matcher == "*" {
		return
	}
	m := *f.matcher
	if c.MatchWholeName {
		m = "^(?:" + m + ")$"
	}
	re, err := regexp.Compile(m)
	if err == nil && re.MatchString(prefix+"tool") {
		return
	}
	cr.add(Fail, "%s: the %s hook's matcher %q never matches server %q's tools, which %s names %stool: the hook never runs; reinstall: interceptor install %s --server %s", path, f.command.Sub, *f.matcher, server, c.Display, prefix, c.Name, server)
}

// doctorCollisions fails hooks of server that do not refuse (--not-server)
// a configured server whose tool names the client spells like server's:
// server's token could go into that server's calls, or the other way round.
func doctorCollisions(cr *ClientReport, c *hooks.Client, server string, configured, argv []string, where string) {
	_, refused := splitNotServers(argv)
	for _, other := range c.Collisions(server, configured) {
		if slices.Contains(refused, other) {
			continue
		}
		mine, theirs, _ := c.CollidingSpellings(server, other)
		cr.add(Fail, "%s: %s names server %q's tools %s… and %q's %s…, which the hooks for %q cannot tell apart: reinstall (interceptor install %s --server %s) to add --not-server %s", where, c.Display, other, theirs, server, mine, server, c.Name, server, other)
	}
}

// doctorRace warns about other pre-tool hooks that fire on the server's
// tools: when two hooks rewrite the same call's input, Claude Code and Codex
// keep the last one to finish, and the token may be lost.
func doctorRace(cr *ClientReport, c *hooks.Client, server string, all []foundHook) {
	prefix, _ := c.ToolPrefix(server)
	sample := prefix + "tool"
	for _, h := range all {
		if h.event != c.PreTool || h.command.Sub != "" {
			continue
		}
		m := ""
		if h.matcher != nil {
			m = *h.matcher
		}
		overlap := m == "" || m == "*"
		if !overlap {
			re, err := regexp.Compile(m)
			if err != nil {
				cr.add(Warn, "%s hook %q has a matcher (%q) doctor cannot read; if it fires on %s's tools and rewrites their input, it races interceptor's inject (the last to finish wins)", c.PreTool, h.raw, m, server)
				continue
			}
			overlap = re.MatchString(sample) || strings.Contains(m, prefix)
		}
		if overlap {
			cr.add(Warn, "%s hook %q also fires on %s's tools: if it rewrites their input too, %s keeps the last one to finish and the token may be lost", c.PreTool, h.raw, server, c.Display)
		}
	}
}

// doctorApproveTimeout checks that the client lets an approve hook run
// past its --timeout: one it kills earlier runs the tool unapproved.
func doctorApproveTimeout(cr *ClientReport, c *hooks.Client, f foundHook, path string) {
	if c.TimeoutUnit == 0 {
		return
	}
	unit := "s"
	if c.TimeoutUnit == time.Millisecond {
		unit = "ms"
	}
	d, ok := f.command.approveTimeout(os.Getenv)
	if !ok {
		cr.add(Warn, "%s: cannot read the --timeout of the approve hook %q; check that %s lets it run longer than its --timeout plus %s", path, f.raw, c.Display, approvals.HookMargin)
		return
	}
	need := approvals.MinHookTimeout(d)
	want := int64((need + c.TimeoutUnit - 1) / c.TimeoutUnit)
	to := f.hook.Get("timeout")
	switch {
	case to.Exists() && to.Type != gjson.Number:
		cr.add(Fail, "%s: the approve hook's timeout %s is not a number; set \"timeout\": %d (%s), or %s may kill it and run the tool unapproved", path, to.Raw, want, unit, c.Display)
	case to.Exists() && time.Duration(to.Float()*float64(c.TimeoutUnit)) < need:
		cr.add(Fail, "%s: the approve hook waits up to %s (--timeout) but %s kills it after %s%s and runs the tool UNAPPROVED: set \"timeout\": %d (or reinstall with --approve)", path, d, c.Display, to.Raw, unit, want)
	case to.Exists():
		cr.add(OK, "%s: the approve hook's timeout (%s%s) covers its --timeout %s", path, to.Raw, unit, d)
	case c.TimeoutDefault == 0:
		cr.add(Warn, "%s: the approve hook sets no timeout and %s's default is not documented: set \"timeout\": %d (%s), or it may kill the hook and run the tool unapproved", path, c.Display, want, unit)
	case c.TimeoutDefault < need:
		cr.add(Fail, "%s: the approve hook sets no timeout, so %s kills it after its default %s and runs the tool UNAPPROVED before its --timeout %s: set \"timeout\": %d (or reinstall with --approve)", path, c.Display, c.TimeoutDefault, d, want)
	default:
		cr.add(OK, "%s: the approve hook sets no timeout; %s's default %s covers its --timeout %s", path, c.Display, c.TimeoutDefault, d)
	}
}

// doctorCodexTrust checks Codex's trust record of one hook.
func doctorCodexTrust(cr *ClientReport, env Env, c *hooks.Client, f foundHook, rep *HookReport, path string, scope Scope) {
	config := env.resolve(c.TrustRecord)
	st, err := readCodexState(config)
	if err != nil && !os.IsNotExist(err) {
		rep.Trust = "unknown"
		cr.add(Warn, "cannot tell whether Codex trusts the hooks in %s: %v", path, err)
		return
	}
	want, ok := codexHookHash(f.event, f.matcher, f.hook)
	if !ok {
		rep.Trust = "unknown"
		cr.add(Warn, "cannot tell whether Codex trusts the %s hook in %s (it has fields doctor does not model); if it does not run, open codex and run /hooks", f.event, path)
		return
	}
	var rec codexHookState
	found := false
	for _, p := range candidatePaths(path) {
		if r, ok := st.Hooks.State[codexHookKey(p, f.event, f.group, f.index)]; ok {
			rec, found = r, true
			break
		}
	}
	switch {
	case found && rec.disabled():
		rep.Trust = "disabled"
		cr.add(Fail, "the %s hook in %s is disabled in Codex: enable it with /hooks in codex", f.event, path)
	case found && rec.TrustedHash == want:
		rep.Trust = "trusted"
		cr.add(OK, "the %s hook in %s is trusted by Codex", f.event, path)
	case found && rec.TrustedHash != "":
		rep.Trust = "modified"
		cr.add(Fail, "the %s hook in %s changed since Codex trusted it, so Codex skips it: run /hooks in codex and trust it again", f.event, path)
	default:
		rep.Trust = "untrusted"
		cr.add(Fail, "the %s hook in %s is not trusted yet, so Codex skips it silently: start codex and run /hooks to trust it", f.event, path)
	}
	if scope == Project && c.ProjectTrust && !st.projectTrusted(env.Project) {
		cr.add(Warn, "Codex loads %s only when the project is trusted, and %s does not list %s as trusted", path, config, env.Project)
	}
}

// candidatePaths are the spellings Codex may key a file by.
func candidatePaths(path string) []string {
	out := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		out = append(out, real)
	}
	return out
}

// doctorShim checks OpenCode's plugin shim.
func doctorShim(cr *ClientReport, path, doc string) []HookReport {
	c, ok := readShim(doc)
	if !ok {
		cr.add(Warn, "%s is not the interceptor shim", path)
		return []HookReport{}
	}
	servers, delivers := c.servers(), c.deliverServers()
	if len(servers) == 0 && len(delivers) == 0 {
		cr.add(Info, "%s is the shim configured by environment variables (INTERCEPTOR_BIN, INTERCEPTOR_SERVER); doctor cannot check it", path)
		return []HookReport{}
	}
	if len(delivers) > 0 {
		cr.add(OK, "server(s) %s: human tools deliver (chat.message, after their tools) in the plugin shim %s", strings.Join(delivers, ", "), path)
	}
	if len(servers) == 0 {
		if !binOK(c.bin) {
			cr.add(Fail, "%s runs %s, which does not exist or is not executable", path, c.bin)
		}
		return []HookReport{{Event: "chat.message, tool.execute.after", Kind: "deliver", Servers: delivers, Command: c.bin, Bin: c.bin, BinOK: binOK(c.bin)}}
	}
	h := HookReport{Event: "tool.execute.before/after", Kind: "plugin", Servers: servers, Command: c.bin, Bin: c.bin, BinOK: binOK(c.bin)}
	cr.add(OK, "server(s) %s: plugin shim installed in %s", strings.Join(servers, ", "), path)
	if len(c.approveArgs) > 0 {
		cr.add(Info, "%s runs approve before inject (APPROVE_ARGS %s)", path, strings.Join(c.approveArgs, " "))
	}
	if !h.BinOK {
		cr.add(Fail, "%s runs %s, which does not exist or is not executable", path, c.bin)
	}
	if d := flagValueArgs(c.args, "--state-dir"); d != "" {
		h.Command = c.bin + " --state-dir " + d
	}
	return []HookReport{h}
}

func flagValueArgs(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func doctorState(dir string, now time.Time) StateReport {
	in := state.Inspect(dir, now)
	r := StateReport{Dir: dir, Exists: in.Exists, Safe: in.Safe(), Sessions: in.Sessions(), Servers: []ServerState{}, Findings: []Finding{}}
	add := func(level, format string, args ...any) {
		r.Findings = append(r.Findings, Finding{level, fmt.Sprintf(format, args...)})
	}
	if !in.Exists {
		add(Info, "does not exist yet (the first capture creates it)")
		return r
	}
	for _, p := range in.Problems {
		add(Fail, "%s", p)
	}
	if in.Safe() {
		add(OK, "safe: owned by you, private, no symlinks")
	}
	stale := 0
	for _, s := range in.Servers {
		name := s.Name
		if name == "" {
			name = s.Key
		}
		ss := ServerState{Server: name, Sessions: s.Sessions, Current: s.Current, StaleTemps: s.Temps}
		msg := fmt.Sprintf("server %q: %d session token(s)", name, s.Sessions)
		if s.Sessions > 0 {
			ss.OldestAgeSecond = now.Sub(s.Oldest).Seconds()
			ss.NewestAgeSecond = now.Sub(s.Newest).Seconds()
			msg += fmt.Sprintf(", oldest %s ago, newest %s ago", age(now.Sub(s.Oldest)), age(now.Sub(s.Newest)))
			if now.Sub(s.Oldest) > StaleAfter {
				stale++
			}
		}
		if s.Current {
			msg += "; a current token"
		}
		add(Info, "%s", msg)
		if s.Temps > 0 {
			add(Warn, "server %q: %d leftover temp file(s); 'interceptor gc' removes them", name, s.Temps)
		}
		r.Servers = append(r.Servers, ss)
	}
	if stale > 0 {
		add(Warn, "some sessions are older than %s: 'interceptor gc --older-than 7d' removes them", age(StaleAfter))
	}
	return r
}

// age is a rounded human duration: 45s, 12m, 5h, 3d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}

// doctorShellGate warns, with approvals on, while a child agent's shell
// can run `interceptor approvals allow` unasked: the client's shell tool is
// not gated, or the client runs its shell where approve cannot answer.
func doctorShellGate(cr *ClientReport, c *hooks.Client, gated bool) {
	switch {
	case c.ShellHook != "":
		cr.add(Warn, "approvals are on but cannot gate %s's shell: it runs shell commands through its %s hook, which interceptor approve does not answer, so a child agent can run `interceptor approvals allow` from it and decide its own requests (docs/approvals.md)", c.Display, c.ShellHook)
	case c.ShellTool != "" && !gated:
		cr.add(Warn, "approvals are on but %s's shell tool (%s) is not gated: a child agent can run `interceptor approvals allow` from its shell and decide its own requests; reinstall with --approve --approve-shell, or add an approve hook whose matcher matches %s (docs/approvals.md)", c.Display, c.ShellTool, c.ShellTool)
	}
}

// gatesTool reports whether an approve hook fires for tool: its matcher
// (none: every tool) matches the name, as the client matches it, and its
// --match, if any, does too.
func gatesTool(c *hooks.Client, f foundHook, tool string) bool {
	if f.matcher != nil && *f.matcher != "" && *f.matcher != "*" {
		m := *f.matcher
		if c.MatchWholeName {
			m = "^(?:" + m + ")$"
		}
		re, err := regexp.Compile(m)
		if err != nil || !re.MatchString(tool) {
			return false
		}
	}
	return approveMatches(f.command.Argv, tool)
}

// approveMatches reports whether approve with these arguments asks about tool:
// its --match, if any, matches the name.
func approveMatches(args []string, tool string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--match" {
			re, err := regexp.Compile(args[i+1])
			return err == nil && re.MatchString(tool)
		}
	}
	return true
}

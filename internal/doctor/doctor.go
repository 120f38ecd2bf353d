package doctor

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
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

	stateDir string // its --state-dir ("": none)
}

// ConfigReport is one config file that exists.
type ConfigReport struct {
	Scope install.Scope `json:"scope"`
	Path  string        `json:"path"`
	Hooks []HookReport  `json:"hooks"`
}

// ClientReport is what doctor found for one client.
type ClientReport struct {
	Client   string         `json:"client"`
	Configs  []ConfigReport `json:"configs"`
	Findings []Finding      `json:"findings"`
}

// Report is the whole doctor's report. OK is false when any finding fails.
type Report struct {
	OK        bool           `json:"ok"`
	Clients   []ClientReport `json:"clients"`
	StateDirs []StateReport  `json:"state_dirs"`
	Machine   []Finding      `json:"machine"` // what holds for every state dir alike
}

// watchUnavailable is approvals.WatchUnavailable; tests make it fail as a
// user's exhausted inotify limit does.
var watchUnavailable = approvals.WatchUnavailable

// Run checks every client config it can find (user scope and the project
// dir's), and the state dirs: the default one (stateDir) and any a hook
// names with --state-dir.
func Run(env install.Env, stateDir string, now time.Time) Report {
	r := Report{OK: true}
	dirs := []string{}
	if stateDir != "" {
		dirs = append(dirs, stateDir)
	}
	for _, c := range hooks.ByName() {
		cr := doctorClient(env, c)
		for _, c := range cr.Configs {
			for _, h := range c.Hooks {
				if d := h.stateDir; d != "" && !slices.Contains(dirs, d) {
					dirs = append(dirs, d)
				}
			}
		}
		r.Clients = append(r.Clients, cr)
	}
	for _, d := range dirs {
		r.StateDirs = append(r.StateDirs, doctorState(d, now))
	}
	// The queue's waits wake on inotify; without an instance left they
	// poll, and nothing else says so. The limit is the user's, not a state
	// dir's: said once.
	r.Machine = []Finding{}
	if err := watchUnavailable(); err != nil {
		r.Machine = append(r.Machine, Finding{Warn, fmt.Sprintf("approval waits re-read their request every 50 ms instead of waking on a decision: %v", err)})
	}
	noFail := func(findings []Finding) bool {
		return !slices.ContainsFunc(findings, func(f Finding) bool { return f.Level == Fail })
	}
	for _, c := range r.Clients {
		r.OK = r.OK && noFail(c.Findings)
	}
	for _, s := range r.StateDirs {
		r.OK = r.OK && noFail(s.Findings)
	}
	r.OK = r.OK && noFail(r.Machine)
	return r
}

// flagValue is the value of flag in argv, given as "flag value" or
// "flag=value" ("": none).
func flagValue(argv []string, flag string) string {
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

// clientCheck is doctor's look at one client: its report, and the hooks
// found in its configs.
type clientCheck struct {
	env  install.Env
	c    *hooks.Client
	cr   ClientReport
	all  []install.Hook // every command hook of the client, for the race check
	ours []ourHook      // interceptor's
}

// ourHook is one of interceptor's hooks, found in the config at path, and
// its line of the report.
type ourHook struct {
	found  install.Hook
	report *HookReport
	path   string
	scope  install.Scope
}

func doctorClient(env install.Env, c *hooks.Client) ClientReport {
	d := &clientCheck{env: env, c: c, cr: ClientReport{Client: c.Name, Configs: []ConfigReport{}, Findings: []Finding{}}}
	d.check()
	doctorProxied(&d.cr, env, c) // a proxied server needs no hooks
	return d.cr
}

// check checks the client's hooks.
func (d *clientCheck) check() {
	env, c := d.env, d.c
	if c.Layout == hooks.Scripts {
		d.scripts()
		return
	}
	for _, p := range install.HookFiles(env, c) {
		d.config(p)
	}
	doctorHumanTimeouts(&d.cr, env, c) // held human tools need no hooks
	if len(d.cr.Configs) == 0 {
		d.cr.add(Info, "no config found (%s)", strings.Join(pathsOf(env, c), ", "))
		return
	}
	d.hooks()
}

// scripts checks a client whose hooks are script files (hooks.Scripts).
func (d *clientCheck) scripts() {
	for _, scope := range []install.Scope{install.User, install.Project} {
		if conf, found := doctorScripts(&d.cr, d.env, d.c, scope); found {
			d.cr.Configs = append(d.cr.Configs, conf)
		}
	}
	if len(d.cr.Configs) == 0 {
		d.cr.add(Info, "no hooks found (%s)", strings.Join(pathsOf(d.env, d.c), ", "))
		return
	}
	doctorOtherScripts(&d.cr, d.env, d.c)
}

// config reads one config file, if it exists, into the report.
func (d *clientCheck) config(p install.HookFile) {
	data, err := install.ReadConfig(p.Path)
	if err != nil {
		if !os.IsNotExist(err) {
			d.cr.add(Fail, "%v", err)
		}
		return
	}
	conf := ConfigReport{Scope: p.Scope, Path: p.Path, Hooks: []HookReport{}}
	if d.c.Layout == hooks.Plugin {
		conf.Hooks = d.shim(p.Path, string(data))
		d.cr.Configs = append(d.cr.Configs, conf)
		return
	}
	found, err := install.FindHooks(p.Path, data, d.c)
	if err != nil {
		d.cr.add(Fail, "%v", err)
		d.cr.Configs = append(d.cr.Configs, conf)
		return
	}
	d.all = append(d.all, found...)
	for _, f := range found {
		if f.Command.Sub != "" {
			conf.Hooks = append(conf.Hooks, commandReport(f.Event, f.Command, f.Raw))
		}
	}
	d.cr.Configs = append(d.cr.Configs, conf)
	k := 0
	for _, f := range found {
		if f.Command.Sub != "" {
			d.ours = append(d.ours, ourHook{f, &conf.Hooks[k], p.Path, p.Scope})
			k++
		}
	}
}

// shim checks a plugin shim (hooks.Plugin) at path and reports its hooks.
func (d *clientCheck) shim(path, data string) []HookReport {
	reports := doctorShim(&d.cr, path, data)
	shim, ok := install.ReadShim(data)
	if !ok {
		return reports
	}
	if d.c.Name == hooks.OpenCodeClient.Name {
		doctorShimAPI(&d.cr, path, data)
	}
	if len(shim.ApproveArgs) > 0 {
		doctorShellGate(&d.cr, d.c, approveMatches(shim.ApproveArgs, d.c.ShellTool))
	}
	shimCarried(&d.cr, shim)
	configured, _ := install.ConfiguredServers(d.env, d.c)
	for _, s := range append(slices.Clone(shim.Servers), shim.DeliverServers...) {
		doctorConfigured(&d.cr, d.env, d.c, s)
	}
	for _, s := range shim.Servers {
		// The shim's own servers are not refused by its ARGS.
		doctorCollisions(&d.cr, d.c, s, slices.DeleteFunc(slices.Clone(configured), func(n string) bool {
			return n != s && slices.Contains(shim.Servers, n)
		}), append([]string{shim.Bin}, shim.Args...), "the shim "+path)
	}
	return reports
}

// hooks checks interceptor's hooks found in the config files: their
// binaries, each server's set, and approve's and trust's needs.
func (d *clientCheck) hooks() {
	c, cr := d.c, &d.cr
	servers := map[string][]ourHook{}
	for _, m := range d.ours {
		for _, s := range m.found.Command.Servers {
			servers[s] = append(servers[s], m)
		}
		if !m.report.BinOK {
			if filepath.IsAbs(m.report.Bin) {
				cr.add(Fail, "%s: %s hook runs %s, which does not exist or is not executable: %s", m.path, m.found.Event, m.report.Bin, binFix(m.report.Bin))
			} else {
				cr.add(Warn, "%s: %s hook runs %q by name: a client started from a GUI may not find it on PATH (reinstall to use the absolute path)", m.path, m.found.Event, m.report.Bin)
			}
		}
	}
	if c.Layout != hooks.Plugin && len(d.ours) == 0 {
		cr.add(Info, "no interceptor hooks in %s", strings.Join(existing(cr.Configs), ", "))
	}
	configured := configuredServers(cr, d.env, c)
	for _, s := range slices.Sorted(maps.Keys(servers)) {
		d.server(s, servers[s], configured)
	}
	approveOn, shellGated := false, false
	for _, m := range d.ours {
		if m.found.Command.Sub == "approve" {
			doctorApproveTimeout(cr, c, m.found, m.path)
			approveOn = true
			shellGated = shellGated || gatesTool(c, m.found, c.ShellTool)
		}
	}
	if approveOn {
		doctorShellGate(cr, c, shellGated)
	}
	if c.TrustStep != "" {
		for _, m := range d.ours {
			doctorTrust(cr, d.env, c, m.found, m.report, m.path, m.scope)
		}
	}
}

// server checks the hooks that serve server: matchers, collisions with
// the configured servers, the set installed, what they carry, races.
func (d *clientCheck) server(s string, mine []ourHook, configured []string) {
	c, cr := d.c, &d.cr
	doctorConfigured(cr, d.env, c, s)
	for _, m := range mine {
		doctorMatcher(cr, c, s, m.found, m.path)
		doctorCollisions(cr, c, s, configured, m.found.Command.Argv, m.found.Event+" hook in "+m.path)
	}
	doctorServer(cr, c, s, func() (kinds []string, paths []string) {
		for _, m := range mine {
			kind := m.found.Command.Sub
			if kind == "capture" && c.PostToolFailure != "" && m.found.Event == c.PostToolFailure {
				kind = failureCapture
			}
			kinds = append(kinds, kind)
			if !slices.Contains(paths, m.path) {
				paths = append(paths, m.path)
			}
		}
		return
	})
	cmds := map[string][][]string{}
	for _, m := range mine {
		cmds[m.found.Command.Sub] = append(cmds[m.found.Command.Sub], m.found.Command.Argv)
	}
	doctorCarried(cr, s, cmds)
	if c.RacesInput {
		doctorRace(cr, c, s, d.all)
	}
}

func pathsOf(env install.Env, c *hooks.Client) []string {
	var out []string
	for _, p := range install.HookFiles(env, c) {
		out = append(out, p.Path)
	}
	return out
}

// configuredServers are the MCP servers the client has configured; what
// cannot be read is warned of.
func configuredServers(cr *ClientReport, env install.Env, c *hooks.Client) []string {
	configured, problems := install.ConfiguredServers(env, c)
	for _, p := range problems {
		cr.add(Warn, "cannot read the MCP servers %s has configured: %s", c.Display, p)
	}
	return configured
}

func existing(cs []ConfigReport) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

// commandReport reports an interceptor hook command on event, written as
// raw.
func commandReport(event string, cmd install.HookCommand, raw string) HookReport {
	h := HookReport{Event: event, Kind: cmd.Sub, Servers: cmd.Servers, Command: raw, Bin: cmd.Bin, BinOK: binOK(cmd.Bin),
		stateDir: flagValue(cmd.Argv, "--state-dir")}
	if h.Servers == nil {
		h.Servers = []string{}
	}
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
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

// failureCapture is the kind doctorServer counts a capture hook on the
// client's PostToolFailure event as, apart from the PostTool one.
const failureCapture = "capture on failure"

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
	if c.PostToolFailure != "" && len(missing) == 0 && counts[failureCapture] == 0 {
		cr.add(Warn, "server %q: no %s capture hook: a start tool that fails leaves the value held before in use; run: interceptor install %s --server %s", server, c.PostToolFailure, c.Name, server)
	}
	for _, k := range append(want, failureCapture) {
		if counts[k] > 1 {
			cr.add(Warn, "server %q: %d %s hooks (in %s); they all run on every call", server, counts[k], k, strings.Join(paths, ", "))
		}
	}
}

// doctorMatcher fails a hook whose matcher cannot match the server's tools
// as the client names them (hooks.Client.ToolPrefix): it never runs.
func doctorMatcher(cr *ClientReport, c *hooks.Client, server string, f install.Hook, path string) {
	prefix, ok := c.ToolPrefix(server)
	if f.Matcher == nil || !ok || *f.Matcher == "" || *f.Matcher == "*" {
		return
	}
	m := *f.Matcher
	if c.MatchWholeName {
		m = "^(?:" + m + ")$"
	}
	re, err := regexp.Compile(m)
	if err == nil && re.MatchString(prefix+"tool") {
		return
	}
	cr.add(Fail, "%s: the %s hook's matcher %q never matches server %q's tools, which %s names %stool: the hook never runs; reinstall: interceptor install %s --server %s", path, f.Command.Sub, *f.Matcher, server, c.Display, prefix, c.Name, server)
}

// doctorCollisions fails hooks of server that do not refuse (--not-server)
// a configured server whose tool names the client spells like server's:
// server's token could go into that server's calls, or the other way round.
func doctorCollisions(cr *ClientReport, c *hooks.Client, server string, configured, argv []string, where string) {
	refused := install.NotServers(argv)
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
func doctorRace(cr *ClientReport, c *hooks.Client, server string, all []install.Hook) {
	prefix, _ := c.ToolPrefix(server)
	sample := prefix + "tool"
	for _, h := range all {
		if h.Event != c.PreTool || h.Command.Sub != "" {
			continue
		}
		m := ""
		if h.Matcher != nil {
			m = *h.Matcher
		}
		overlap := m == "" || m == "*"
		if !overlap {
			re, err := regexp.Compile(m)
			if err != nil {
				cr.add(Warn, "%s hook %q has a matcher (%q) doctor cannot read; if it fires on %s's tools and rewrites their input, it races interceptor's inject (the last to finish wins)", c.PreTool, h.Raw, m, server)
				continue
			}
			overlap = re.MatchString(sample) || strings.Contains(m, prefix)
		}
		if overlap {
			cr.add(Warn, "%s hook %q also fires on %s's tools: if it rewrites their input too, %s keeps the last one to finish and the token may be lost", c.PreTool, h.Raw, server, c.Display)
		}
	}
}

// doctorApproveTimeout checks that the client lets an approve hook run
// past its --timeout: one it kills earlier runs the tool unapproved.
func doctorApproveTimeout(cr *ClientReport, c *hooks.Client, f install.Hook, path string) {
	if c.TimeoutUnit == 0 {
		return
	}
	unit := "s"
	if c.TimeoutUnit == time.Millisecond {
		unit = "ms"
	}
	d, ok := f.Command.ApproveTimeout()
	if !ok {
		cr.add(Warn, "%s: cannot read the --timeout of the approve hook %q; check that %s lets it run longer than its --timeout plus %s", path, f.Raw, c.Display, approvals.HookMargin)
		return
	}
	need := approvals.MinHookTimeout(d)
	want := int64((need + c.TimeoutUnit - 1) / c.TimeoutUnit)
	to := f.Timeout
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
func gatesTool(c *hooks.Client, f install.Hook, tool string) bool {
	if f.Matcher != nil && *f.Matcher != "" && *f.Matcher != "*" {
		m := *f.Matcher
		if c.MatchWholeName {
			m = "^(?:" + m + ")$"
		}
		re, err := regexp.Compile(m)
		if err != nil || !re.MatchString(tool) {
			return false
		}
	}
	return approveMatches(f.Command.Argv, tool)
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

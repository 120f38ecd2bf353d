package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// install's help, its client facts read from the clients' descriptions.

// hookFile keeps the clients whose hooks are a config file's entries.
func hookFile(c *hooks.Client) bool { return c.Layout == hooks.Grouped || c.Layout == hooks.Flat }

// approvable keeps the clients install writes an approve hook for.
func approvable(c *hooks.Client) bool { return !c.NoApprove }

// gatesShell keeps the clients whose shell tool --approve-shell gates.
func gatesShell(c *hooks.Client) bool { return approvable(c) && c.ShellTool != "" && c.ShellHook == "" }

// installLong is install's help.
func installLong() string {
	codex := hooks.CodexClient
	spelled, _ := codex.ToolPrefix("workflow-server")
	units := []string{}
	for _, g := range groupBy(clientsWhere(func(c *hooks.Client) bool { return hookFile(c) && approvable(c) }), timeoutUnit) {
		units = append(units, g.value+" for "+displays(g.clients))
	}
	matchDefaults := []string{"the server's tools"}
	for _, c := range clientsWhere(func(c *hooks.Client) bool { return c.ApproveMatch != "" }) {
		matchDefaults = append(matchDefaults, fmt.Sprintf("for %s, every tool matching %s, as %s's tool names need not name the server", c.Display, c.ApproveMatch, c.Display))
	}
	if shims := clientsWhere(func(c *hooks.Client) bool { return c.Layout == hooks.Plugin }); len(shims) > 0 {
		matchDefaults = append(matchDefaults, "for "+displays(shims)+" it fills the shim's APPROVE_ARGS")
	}
	var shellHooks []string
	for _, c := range clientsWhere(func(c *hooks.Client) bool { return c.ShellHook != "" }) {
		shellHooks = append(shellHooks, fmt.Sprintf("%s runs shell commands through its own %s hook, which approve does not answer: it cannot be gated.", c.Display, c.ShellHook))
	}
	return "Merges interceptor's hooks for one token server into the client's own config:\n\n" +
		installTable() + "\n\n" + wrap(`Each gets inject on the client's pre-tool event, capture on its post-tool
one and, where install knows one, clear on its session end (`+byValue(clientsWhere(all), func(c *hooks.Client) string { return c.SessionEnd })+`).

The edit is surgical: everything else in the file keeps its bytes, running
install again changes nothing, and uninstall takes out exactly what install
added. Before the first change to an existing file, a copy is kept as
FILE.interceptor-backup. Comments stay where the client reads them (`+
		displays(clientsWhere(func(c *hooks.Client) bool { return hookFile(c) && c.Syntax.Comments }))+`); a file with comments or trailing commas that the
client itself would not read (`+displays(clientsWhere(func(c *hooks.Client) bool { return hookFile(c) && !c.Syntax.Comments }))+`) is refused, never
rewritten. Installs running at once on one file take turns (a lock file
.FILE.interceptor-lock beside it while they run), so every server's hooks
stay. A config that is a symlink is edited where it points; one pointing
nowhere is refused. install warns when the client's own MCP server list has
no server named --server (the hooks would never fire), naming the nearest.

The hooks call this binary by its absolute path (or --bin), so a client
started from a GUI with a thin PATH finds it. Each hook fires only for the
server's tools, spelled as the client names them (`+codex.Display+`: workflow-server's
tools are `+spelled+`*). Where the client's tool names cannot
tell two configured servers apart (`+codex.Display+`: wf and wf__admin), install reads
the client's MCP server list and the hooks get --not-server for the other.
The hook options given here (`+passedOn()+`) go into the commands; doctor shows them.
install reads no INTERCEPTOR_* variables: the hooks get only what is on
this command line.

--approve adds a pre-tool 'interceptor approve' hook in front of inject
(docs/approvals.md): each call to the server's tools waits until a
supervisor allows or denies it (not for `+displays(clientsWhere(func(c *hooks.Client) bool { return !approvable(c) }))+`, whose hook
timeout or decision format is not verified). --approve-timeout is how long it waits
(approve's --timeout, default 5m); the client's own hook timeout is set to
that plus 30 s (`+strings.Join(units, ", ")+`), since a client that kills the hook runs the tool unapproved.
--approve-match REGEX limits it to the tool names matching (default: `+strings.Join(matchDefaults, "; ")+`). Installing
again without --approve leaves an approve hook in place; uninstall removes
it with the others.

--approve-shell gates the client's shell tool as well (`+byValue(clientsWhere(gatesShell), func(c *hooks.Client) string { return c.ShellTool })+`): a child
agent running as you can otherwise run 'interceptor approvals allow' from
its shell and decide its own requests. It writes one more approve hook,
whose matcher is the shell tool (the shim: its APPROVE_ARGS --match takes
the shell in), shared by every server of the file and removed with the last
approve hook install wrote. `+strings.Join(shellHooks, " ")+` Gating the shell is a speed bump, not a wall (docs/approvals.md).`) +
		trustHelp() + "\n\n" + wrap(`--proxy installs no hooks: it rewrites the server's entry in the client's
own MCP config (`+showPaths(proxyConfigs())+`, and the project's files with --scope project) so the client starts 'interceptor proxy -- <its command>', or,
for a Streamable HTTP server, 'interceptor-http proxy --url-env
INTERCEPTOR_PROXY_URL' (the binary next to this one), with its address and
headers moved into the entry's environment, never into the arguments the
process list shows. The hook
options the proxy takes go with it. The entry as it was is kept in
FILE.interceptor-proxy; 'uninstall --proxy' puts it back byte for byte
(docs/proxy.md).`)
}

// proxyConfigs are the first user file of each client's MCP server
// lists, which install --proxy edits (among the others).
func proxyConfigs() []hooks.Path {
	var out []hooks.Path
	for _, c := range clientsWhere(all) {
		for _, l := range c.MCPServers {
			if !l.Path.Root.Project {
				out = append(out, l.Path)
				break
			}
		}
	}
	return out
}

// showPaths are paths for a person, comma-separated.
func showPaths(ps []hooks.Path) string {
	var out []string
	for _, p := range ps {
		out = append(out, showPath(p))
	}
	return strings.Join(out, ", ")
}

// timeoutUnit is the unit of the client's hook timeout, in words.
func timeoutUnit(c *hooks.Client) string {
	switch c.TimeoutUnit {
	case time.Second:
		return "seconds"
	case time.Millisecond:
		return "milliseconds"
	}
	return ""
}

// installTable is where install writes for each client, one entry each.
func installTable() string {
	cs := clientsWhere(all)
	width := 0
	for _, c := range cs {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	for i, c := range cs {
		var where string
		switch c.Layout {
		case hooks.Plugin:
			where = fmt.Sprintf("the plugin shim %s in %s or %s", baseName(c.User), showDir(c.User), showDir(c.Project))
		case hooks.Scripts:
			where = fmt.Sprintf("the executables %s and %s in %s or %s (a hook file of your own there is never overwritten)", c.PreTool, c.PostTool, showDir(c.User), showDir(c.Project))
		default:
			where = showPath(c.User) + ", " + showPath(c.Project)
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		indent := strings.Repeat(" ", 2+width+2)
		entry := wrapTo(where, helpWidth-len(indent))
		b.WriteString("  " + c.Name + strings.Repeat(" ", width-len(c.Name)+2) + strings.ReplaceAll(entry, "\n", "\n"+indent))
	}
	return b.String()
}

func baseName(p hooks.Path) string { return p.Rel[strings.LastIndexByte(p.Rel, '/')+1:] }

// trustHelp is --trust's part of the help: for each client that runs
// hooks only once trusted.
func trustHelp() string {
	var b strings.Builder
	for _, c := range clientsWhere(func(c *hooks.Client) bool { return c.TrustStep != "" }) {
		project := ""
		if c.ProjectTrust {
			project = fmt.Sprintf(", and a project's hooks still load only in a project %s trusts", c.Display)
		}
		b.WriteString("\n\n" + wrap(fmt.Sprintf(`%s runs new or changed hooks only after you trust them (%s); run 'interceptor doctor' to check. --trust records that trust itself in %s, the hash of each hook install wrote for the server, exactly as its own review would: you vouch for those commands without %s asking you. It is what a headless run needs, which cannot ask. Any later change to one of these hooks (by you, another tool, or a reinstall with other options and no --trust) makes %s skip it again until it is trusted anew; other hooks in %s are not trusted by it%s.`,
			c.Display, c.TrustStep, showPath(c.TrustRecord), c.Display, c.Display, baseName(c.User), project)))
	}
	return b.String()
}

// trustUsage is --trust's flag help.
func trustUsage() string {
	var where []string
	for _, c := range clientsWhere(func(c *hooks.Client) bool { return c.TrustStep != "" }) {
		where = append(where, c.Name+": in "+showPath(c.TrustRecord))
	}
	return strings.Join(where, "; ") + ": record the hooks as trusted, as the client's own review would, for headless runs, which cannot ask"
}

// shellTools are the shell tools --approve-shell gates, each once.
func shellTools() string {
	var out []string
	for _, g := range groupBy(clientsWhere(gatesShell), func(c *hooks.Client) string { return c.ShellTool }) {
		out = append(out, g.value)
	}
	return strings.Join(out, ", ")
}

// installExample is install's examples.
func installExample() string {
	claude, codex, opencode := hooks.ClaudeCodeClient.Name, hooks.CodexClient.Name, hooks.OpenCodeClient.Name
	return "  interceptor install " + claude + " --server wf --redact\n" +
		"  interceptor install " + codex + " --server wf --scope project --dry-run\n" +
		"  interceptor install " + claude + " --server wf --approve --approve-timeout 10m\n" +
		"  interceptor install " + codex + " --server wf --approve --approve-shell\n" +
		"  interceptor install " + opencode + " --server wf --redact --skip-tool start_session --skip-tool resume\n" +
		"  interceptor install " + codex + " --server wf --proxy"
}

// passedOn are install's flags that go into the hooks' commands: the
// handle options install passes on (carry.Table), and --state-dir.
func passedOn() string {
	var names []string
	for _, opt := range carry.Table {
		if opt.Install != "" {
			names = append(names, "--"+opt.Name)
		}
	}
	return strings.Join(append(names, "--state-dir"), ", ")
}

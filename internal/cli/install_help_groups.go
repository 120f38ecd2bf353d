package cli

import (
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// install's help starts with the one command most people need, then its
// options in groups, then the examples and the details (installLong): the
// details alone are about a hundred lines, and a person looking for the
// common case should not have to read them first.

// installGroups are install's options by what they are about, in the
// order the help shows them. A flag no group names shows under "Other
// options" (TestInstallHelpGroups keeps that empty).
var installGroups = []struct {
	title string
	flags []string
}{
	{"What to carry", []string{"server", "arg", "handles", "meta-key", "keep-if", "token-pattern", "min-token-length",
		"skip-tool", "start-tool", "sessionless", "redact"}},
	{"Where to install", []string{"scope", "project", "bin", "state-dir", "trust"}},
	{"Proxy instead of hooks", []string{"proxy"}},
	{"Approvals and questions", []string{"approve", "approve-timeout", "approve-match", "approve-shell", "deliver"}},
	{"Output", []string{"dry-run", "help"}},
}

// installIntro is the first lines of install's help: the common case.
func installIntro() string {
	return "Wires interceptor into one client for one MCP server. Most people need:\n\n" +
		"  interceptor install " + hooks.ClaudeCodeClient.Name + " --server NAME --arg KEY\n\n" +
		wrap(`NAME is the server as the client names it (the client's own mcp list shows them; user,
local or project scope), KEY the argument that carries its handle
(session_token when --arg is left out; several handles: --handles FILE). Then
run 'interceptor doctor'. --proxy runs the server through interceptor instead
of hooks. CLIENT is one of `+clientNames(clientsWhere(all), ", ")+`.`)
}

// installHelp is install's whole help, its flags grouped.
func installHelp(cmd *cobra.Command) string {
	var b strings.Builder
	b.WriteString(installIntro() + "\n\nUsage:\n  " + cmd.UseLine() + "\n")
	seen := map[string]bool{}
	group := func(title string, names []string) {
		fs := pflag.NewFlagSet(title, pflag.ContinueOnError)
		fs.SortFlags = false // the group's order: the most used first
		for _, n := range names {
			if f := cmd.Flags().Lookup(n); f != nil && !seen[n] {
				seen[n] = true
				fs.AddFlag(f)
			}
		}
		if fs.HasFlags() {
			fmt.Fprintf(&b, "\n%s:\n%s", title, fs.FlagUsagesWrapped(helpWidth))
		}
	}
	for _, g := range installGroups {
		group(g.title, g.flags)
	}
	var rest []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !seen[f.Name] && !f.Hidden {
			rest = append(rest, f.Name)
		}
	})
	group("Other options", rest)
	b.WriteString("\nExamples:\n" + installExample() + "\n\nHow install works:\n\n" + installLong() + "\n")
	return b.String()
}

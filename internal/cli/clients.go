package cli

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// The help texts name the clients from their descriptions
// (internal/hooks), never from a list of their own: a client added there
// shows up in every help that concerns it (TestHelpFollowsTheClients).

// clientsWhere are the clients, in name order, for which keep holds.
func clientsWhere(keep func(*hooks.Client) bool) []*hooks.Client {
	var out []*hooks.Client
	for _, c := range hooks.ByName() {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// displays is the clients' display names, "A, B and C".
func displays(cs []*hooks.Client) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Display)
	}
	return joinAnd(out)
}

// clientNames is the clients' --client names, joined by sep.
func clientNames(cs []*hooks.Client, sep string) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return strings.Join(out, sep)
}

// all keeps every client.
func all(*hooks.Client) bool { return true }

// joinAnd joins "A, B and C".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// group is clients sharing one value of a fact, e.g. a shell tool.
type group struct {
	value   string
	clients []*hooks.Client
}

// groupBy groups the clients by what value says of each ("" leaves a
// client out), in the order the values first appear.
func groupBy(cs []*hooks.Client, value func(*hooks.Client) string) []group {
	var out []group
	for _, c := range cs {
		v := value(c)
		if v == "" {
			continue
		}
		i := slices.IndexFunc(out, func(g group) bool { return g.value == v })
		if i < 0 {
			i = len(out)
			out = append(out, group{value: v})
		}
		out[i].clients = append(out[i].clients, c)
	}
	return out
}

// byValue is the clients grouped by value, "A and B Bash, C
// run_shell_command".
func byValue(cs []*hooks.Client, value func(*hooks.Client) string) string {
	var out []string
	for _, g := range groupBy(cs, value) {
		out = append(out, displays(g.clients)+" "+g.value)
	}
	return strings.Join(out, ", ")
}

// showPath is a config path as people read it: ~/.gemini/settings.json,
// <project>/.codex/hooks.json, $CODEX_HOME/hooks.json (~/.codex).
func showPath(p hooks.Path) string {
	switch r := p.Root; {
	case r.Project:
		return "<project>/" + p.Rel
	case r.Var != "":
		return "$" + r.Var + "/" + p.Rel + " (" + path.Join("~", r.Home) + ")"
	}
	return path.Join("~", p.Root.Home) + "/" + p.Rel
}

// showDir is the dir of a config path as people read it, ending in /.
func showDir(p hooks.Path) string {
	return showPath(hooks.Path{Root: p.Root, Rel: path.Dir(p.Rel) + "/"})
}

// helpWidth is the column the help texts wrap at.
const helpWidth = 78

// wrap fills each paragraph of text (paragraphs are separated by a blank
// line) to helpWidth columns; a paragraph whose lines start with a space
// is kept as it is (a table).
func wrap(text string) string {
	paras := strings.Split(text, "\n\n")
	for i, p := range paras {
		if !strings.HasPrefix(p, " ") {
			paras[i] = wrapTo(p, helpWidth)
		}
	}
	return strings.Join(paras, "\n\n")
}

// listItem is text as an item of a list in a help text: "- " and its
// words filled to helpWidth, the lines after the first indented to match.
func listItem(text string) string {
	return "- " + strings.ReplaceAll(wrapTo(text, helpWidth-2), "\n", "\n  ")
}

// wrapTo fills text's words into lines of at most width columns.
func wrapTo(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(text) {
		n := utf8.RuneCountInString(w)
		switch {
		case col == 0:
		case col+1+n > width:
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += n
	}
	return b.String()
}

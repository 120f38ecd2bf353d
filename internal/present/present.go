// Package present turns an approval request into what a person reads: a
// shell command as its text under the agent's description, an edit as a
// unified diff, a write as its path and content, any other tool's
// arguments as key and value; with the session's working directory and
// project, and marks on risky shapes. The inbox page and the terminal's
// `approvals watch` both show this.
//
// The request it is given is already masked (approvals' Viewer: held
// values are stand-ins). Every string it returns went through
// approvals.Visible line by line: control, bidi and blank characters show
// as escapes, the line breaks of a command or a file stay real breaks.
package present

import (
	"path/filepath"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/gjson"
)

// Kinds of Card.
const (
	KindCommand = "command" // a shell command: Command (and Description)
	KindEdit    = "edit"    // Edit, MultiEdit and the like: Path and Diff
	KindWrite   = "write"   // Write and the like: Path and Content
	KindArgs    = "args"    // anything else: Args
)

// Card is a request as a person reads it. Every string is Visible.
type Card struct {
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"` // the agent's own words for a command
	Command     string `json:"command,omitempty"`     // lines kept
	Path        string `json:"path,omitempty"`
	Diff        string `json:"diff,omitempty"`    // unified diff, lines kept
	Content     string `json:"content,omitempty"` // a write's content, lines kept
	Args        []Arg  `json:"args,omitempty"`
	Cwd         string `json:"cwd,omitempty"`
	Project     string `json:"project,omitempty"`
	// Risks name the risky shapes found (RiskRmRf, ...), in a fixed order.
	Risks []string `json:"risks,omitempty"`
}

// Arg is one argument of a tool shown as key and value: a string as its
// text (lines kept), anything else as compact JSON.
type Arg struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Of presents r (masked already).
func Of(r approvals.Request) Card {
	in := gjson.Parse(r.Input)
	c := Card{Cwd: approvals.Visible(r.Cwd), Project: approvals.Visible(r.Project)}
	if r.Project == r.Cwd {
		c.Project = ""
	}
	tool := strings.ToLower(r.Tool)
	switch {
	case shellTools[tool] && in.Get("command").Exists():
		cmd := commandText(in.Get("command"))
		c.Kind, c.Command = KindCommand, Lines(cmd)
		c.Description = Lines(in.Get("description").Str)
		c.Risks = CommandRisks(cmd)
	case editTools[tool] && pathOf(in) != "":
		c.Kind, c.Path = KindEdit, approvals.Visible(pathOf(in))
		c.Diff = Lines(editDiff(pathOf(in), in))
		c.Risks = pathRisks(pathOf(in), r.Cwd)
	case writeTools[tool] && pathOf(in) != "":
		c.Kind, c.Path = KindWrite, approvals.Visible(pathOf(in))
		c.Content = Lines(in.Get("content").Str)
		c.Risks = pathRisks(pathOf(in), r.Cwd)
	default:
		c.Kind = KindArgs
		in.ForEach(func(k, v gjson.Result) bool {
			val := v.Raw
			if v.Type == gjson.String {
				val = v.Str
			}
			c.Args = append(c.Args, Arg{Key: approvals.Visible(k.Str), Value: Lines(val)})
			return true
		})
	}
	return c
}

// The tool names (lower case) of each kind, as the clients spell them:
// Claude Code (Bash, Edit, MultiEdit, Write), Gemini CLI
// (run_shell_command, replace, write_file), OpenCode, Codex and Copilot
// (bash, shell, edit, write).
var (
	shellTools = set("bash", "shell", "local_shell", "run_shell_command", "execute", "execute_command", "run_command")
	editTools  = set("edit", "multiedit", "replace", "str_replace", "apply_edit")
	writeTools = set("write", "write_file", "create_file")
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// commandText is a command given as a string, or as argv (Codex's shell):
// its words joined by spaces, each one that needs it quoted.
func commandText(v gjson.Result) string {
	if !v.IsArray() {
		return v.String()
	}
	var words []string
	for _, w := range v.Array() {
		s := w.String()
		if s == "" || strings.ContainsAny(s, " \t\n'\"\\$`|&;<>()*?[]{}~#!") {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		words = append(words, s)
	}
	return strings.Join(words, " ")
}

// pathOf is the file an edit or write names, in the spellings clients use.
func pathOf(in gjson.Result) string {
	for _, k := range []string{"file_path", "filePath", "path", "absolute_path"} {
		if v := in.Get(k); v.Type == gjson.String {
			return v.Str
		}
	}
	return ""
}

// Lines is text of many lines for a person: each line Visible, the line
// breaks kept (a \r\n shows its \r).
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = approvals.Visible(l)
	}
	return strings.Join(lines, "\n")
}

// Outside reports whether path (absolute, or relative to cwd) lies outside
// cwd; false when cwd is not known.
func Outside(path, cwd string) bool {
	if cwd == "" || path == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	rel, err := filepath.Rel(filepath.Clean(cwd), filepath.Clean(path))
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func pathRisks(path, cwd string) []string {
	if Outside(path, cwd) {
		return []string{RiskOutside}
	}
	return nil
}

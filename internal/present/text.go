package present

import (
	"strings"
	"unicode/utf8"
)

// Text is the card for a terminal: where the session works, the risk
// marks, then the command, diff, content or arguments, every line wrapped
// at width runes (continuations indented), nothing cut.
func (c Card) Text(width int) []string {
	width = max(width, 20)
	var out []string
	// block adds text's lines, the first after first, the others after
	// rest.
	block := func(first, rest, text string) {
		for i, l := range strings.Split(text, "\n") {
			if i > 0 {
				first = rest
			}
			out = append(out, wrap(first+l, width)...)
		}
	}
	add := func(prefix, text string) { block(prefix, prefix, text) }
	if c.Cwd != "" {
		where := "in " + c.Cwd
		if c.Project != "" {
			where += " (project " + c.Project + ")"
		}
		add("", where)
	}
	if len(c.Risks) > 0 {
		add("", "! risky: "+strings.Join(c.Risks, ", "))
	}
	switch c.Kind {
	case KindCommand:
		if c.Description != "" {
			add("# ", c.Description)
		}
		block("$ ", "  ", c.Command)
	case KindEdit:
		add("", c.Diff)
	case KindWrite:
		add("write ", c.Path)
		add("| ", c.Content)
	default:
		for _, a := range c.Args {
			if strings.Contains(a.Value, "\n") {
				add("", a.Key+":")
				add("  ", a.Value)
			} else {
				add("", a.Key+": "+a.Value)
			}
		}
	}
	return out
}

// wrap cuts a line into pieces of at most width runes.
func wrap(line string, width int) []string {
	var out []string
	for utf8.RuneCountInString(line) > width {
		cut := 0
		for i := range line {
			if cut == width {
				cut = i
				break
			}
			cut++
		}
		out = append(out, line[:cut])
		line = "  " + line[cut:]
	}
	return append(out, line)
}

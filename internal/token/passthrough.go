package token

import "strings"

// A tool passes documents through: a file it read, a page it fetched, an
// issue it quotes. A `session_token: X` line inside one is the document's,
// not the server's, and taking it would hand the session to whoever wrote
// the document (session fixation). Servers set what they pass through
// apart as markdown does, in a fenced code block or a block quote; a line
// inside one is never a value. What is not set apart (a file returned raw)
// cannot be told from the server's own lines: see docs/tokens.md for what
// closes that (the _meta latch, per-tool sources).

// passThrough tells the lines of one text block that stand inside a fenced
// code block or a block quote. Lines are asked about in increasing order
// (holds), so a block is scanned once however many lines are asked about.
type passThrough struct {
	pos   int  // the start of the first line not scanned yet
	fence byte // '`' or '~' inside a fenced block, else 0
	n     int  // the opening fence's length
	quote bool // inside a block quote (a '>' line, and the lines that continue it)
}

// holds reports whether the line starting at lineStart in body is inside a
// fenced block or a block quote, or is a fence or quote line itself.
func (p *passThrough) holds(body string, lineStart int) bool {
	for p.pos < lineStart {
		end := strings.IndexByte(body[p.pos:], '\n')
		if end < 0 || p.pos+end >= lineStart {
			break // lineStart is inside this line: cannot be (lines start after '\n')
		}
		p.step(body[p.pos : p.pos+end])
		p.pos += end + 1
	}
	end := strings.IndexByte(body[lineStart:], '\n')
	if end < 0 {
		end = len(body) - lineStart
	}
	line := strings.TrimLeft(body[lineStart:lineStart+end], " \t")
	if p.fence != 0 || p.quote || strings.HasPrefix(line, ">") {
		return true
	}
	_, ok := fenceOpen(line)
	return ok
}

// step moves the state past one line. A fence opens with three or more
// backticks or tildes at any indentation (a fence in a list item is
// indented) and closes with a run of the same character at least as long
// and nothing after it (CommonMark); one never closed runs to the end of
// the block. A quote starts with a '>' line and goes on to the next blank
// line: markdown continues a quoted paragraph on lines without '>'.
func (p *passThrough) step(line string) {
	line = strings.TrimLeft(strings.TrimRight(line, " \t\r"), " \t")
	switch {
	case p.fence != 0:
		if n := run(line, p.fence); n >= p.n && n == len(line) {
			p.fence = 0
		}
	case line == "":
		p.quote = false
	case strings.HasPrefix(line, ">"):
		p.quote = true
	case p.quote:
	default:
		if n, ok := fenceOpen(line); ok {
			p.fence, p.n = line[0], n
		}
	}
}

// fenceOpen reports whether line (without its indentation) opens a fenced
// block, and the fence's length. A backtick fence's info string holds no
// backtick (``` `x` ``` at the start of a line is inline code).
func fenceOpen(line string) (int, bool) {
	if line == "" || line[0] != '`' && line[0] != '~' {
		return 0, false
	}
	n := run(line, line[0])
	if n < 3 || line[0] == '`' && strings.IndexByte(line[n:], '`') >= 0 {
		return 0, false
	}
	return n, true
}

// run is how many c start s.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

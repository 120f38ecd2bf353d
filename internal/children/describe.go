package children

import (
	"fmt"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/gjson"
)

// What children follow prints for a person, one line per event or waiting
// request.

// DescribeEvent is one line for a person of event number seq, ev the
// normalized event as the log holds it (its runner may be another
// version, so it is read by path). Poll has masked the tokens; the strings
// it decodes are the child's and its model's words, so each is made
// Visible as approvals list does: a raw ESC, OSC or bidi override never
// reaches the terminal.
func DescribeEvent(seq int, ev gjson.Result) string {
	str := func(path string) string { return approvals.Visible(ev.Get(path).Str) }
	head := fmt.Sprintf("#%d %s", seq, str("type"))
	switch ev.Get("type").Str {
	case "start":
		return fmt.Sprintf("%s %s session %s: %s", head, str("client"), str("session"), ClipLine(str("prompt")))
	case "content":
		return head + ": " + ClipLine(str("text"))
	case "tool_use":
		return fmt.Sprintf("%s %s %s %s", head, str("id"), str("name"), ClipLine(approvals.Visible(ev.Get("input").Raw)))
	case "tool_result":
		mark := ""
		if ev.Get("is_error").Bool() {
			mark = " (error)"
		}
		return fmt.Sprintf("%s %s%s: %s", head, str("tool_use_id"), mark, ClipLine(str("content")))
	case "complete":
		return fmt.Sprintf("%s %s: %s", head, str("status"), ClipLine(approvals.Visible(EndText(ev))))
	}
	return head
}

// EndText is what a complete event says: its error, else its result (a
// failed chat's often carry the same text).
func EndText(ev gjson.Result) string {
	if e := ev.Get("error").Str; e != "" {
		return e
	}
	return ev.Get("result").Str
}

// DescribePending is the line of a request waiting for a person, its tool
// name and input made Visible.
func DescribePending(a PendingApproval) string {
	id := approvals.Visible(a.ID)
	what, how := "approval", "allow|deny "+id
	if a.Kind == approvals.KindInput { // a human tool's question
		what, how = "an answer", "answer "+id+" TEXT"
	}
	return fmt.Sprintf("   awaiting %s %s: %s %s (interceptor approvals %s)", what, id,
		approvals.Visible(a.ToolName), approvals.Visible(string(a.Input)), how)
}

// ClipLine cuts a Visible line to 200 bytes, at a rune's start, and says
// how much it cut: the end of a line is never dropped unseen.
func ClipLine(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s… [cut: %d of %d bytes shown; children follow --json has it whole]", s[:i], i, len(s))
}

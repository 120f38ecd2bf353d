package watch

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// Status is a request's status for people: a pending request nobody waits
// for any more reads "stale", a human tool's question "asks".
func Status(r approvals.Request, now time.Time) string {
	if r.Stale(now) {
		return "stale"
	}
	if r.IsInput() && r.Status == approvals.Pending {
		return "asks" // a human tool's question: answer, not allow/deny
	}
	return string(r.Status)
}

// summaryFormat lays out Summary's columns, and Header names them.
const summaryFormat = "%-20s  %-7s  %10s  %-11s  %s  %s"

// Header is the line above Summary's lines.
var Header = fmt.Sprintf(summaryFormat, "ID", "STATUS", "AGE", "CLIENT", "TOOL", "INPUT")

// Summary is one request on one line. The tool name and input come from
// the model: both are made Visible, and an input too long for the line says
// it is cut and where to read it whole.
func Summary(r approvals.Request, now time.Time) string {
	return fmt.Sprintf(summaryFormat, r.ID, Status(r, now),
		now.Sub(r.Created).Round(time.Second).String()+" ago", approvals.Visible(r.Client), approvals.Visible(r.Tool), clip(r, 80))
}

// clip is the input on one line, cut at a word's end near n bytes (never
// inside a word or a rune) with a note saying where to read it whole.
func clip(r approvals.Request, n int) string {
	s := approvals.Visible(r.Input)
	if len(s) <= n {
		return s
	}
	cut := n
	if sp := strings.LastIndexAny(s[:n], " ,"); sp > n/2 {
		cut = sp + 1
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [cut: %d of %d bytes shown; approvals show %s]", strings.TrimRight(s[:cut], " "), cut, len(s), r.ID)
}

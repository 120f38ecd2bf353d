package approvals

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decider names who decides, for a record's decided_by, from facts the
// kernel keeps rather than the environment ($USER is whatever the caller
// sets): via (cli, watch, mcp supervisor), the uid, this process's pid, and
// its parent's pid, executable and command line where /proc shows them
// (Linux). A child agent running as the same uid can still decide its own
// requests (docs/approvals.md); this makes it visible who did. The parent's
// command line is what that parent was started with, so a parent that is
// itself the child's can dress it up; its pid and executable it cannot.
func Decider(via string) string {
	ppid := os.Getppid()
	var b strings.Builder
	fmt.Fprintf(&b, "%s (uid %d, pid %d, parent %d", via, os.Getuid(), os.Getpid(), ppid)
	proc := "/proc/" + strconv.Itoa(ppid)
	if exe, err := os.Readlink(proc + "/exe"); err == nil {
		b.WriteString(" " + Visible(exe))
	}
	if raw, err := os.ReadFile(proc + "/cmdline"); err == nil && len(raw) > 0 {
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		for i, a := range args {
			if a == "" || strings.ContainsAny(a, " \t\"'\\") {
				args[i] = strconv.Quote(a)
			}
		}
		cmd := Visible(strings.Join(args, " "))
		if n := maxDeciderCmd; len(cmd) > n {
			for !utf8.RuneStart(cmd[n]) {
				n--
			}
			cmd = cmd[:n] + "…"
		}
		b.WriteString(": " + cmd)
	}
	b.WriteString(")")
	return b.String()
}

// maxDeciderCmd bounds the parent command line kept in a record.
const maxDeciderCmd = 200

package present

import (
	"regexp"
	"strings"
)

// Risky shapes a card marks. A mark draws the eye; its absence proves
// nothing (a command can hide any of these from a pattern), so the
// command itself is always shown whole.
const (
	RiskRmRf    = "rm -rf"
	RiskSudo    = "sudo"
	RiskPipeSh  = "| sh"
	RiskCurl    = "curl … |"
	RiskForce   = "--force"
	RiskOutside = "writes outside the working directory"
)

var (
	// rm with a recursive and a force flag, in one word or two, short or long.
	rmWord   = regexp.MustCompile(`(?:^|[\s;&|(` + "`" + `])rm((?:\s+-{1,2}[A-Za-z-]+)+)`)
	sudo     = regexp.MustCompile(`(?:^|[\s;&|(` + "`" + `])(?:sudo|doas)\s`)
	pipeSh   = regexp.MustCompile(`\|\s*(?:sudo\s+)?(?:/\S*/)?(?:ba|z|da|k|fi)?sh\b`)
	fetchTo  = regexp.MustCompile(`\b(?:curl|wget)\b[^|;&\n]*\|`)
	forceArg = regexp.MustCompile(`(?:^|\s)--force(?:-with-lease)?\b|\bgit\s+push\b[^;&|\n]*\s-f\b`)
)

// CommandRisks names the risky shapes in a shell command.
func CommandRisks(cmd string) []string {
	var out []string
	if rmRf(cmd) {
		out = append(out, RiskRmRf)
	}
	if sudo.MatchString(cmd) {
		out = append(out, RiskSudo)
	}
	if pipeSh.MatchString(cmd) {
		out = append(out, RiskPipeSh)
	}
	if fetchTo.MatchString(cmd) {
		out = append(out, RiskCurl)
	}
	if forceArg.MatchString(cmd) {
		out = append(out, RiskForce)
	}
	return out
}

// rmRf finds an rm whose flags ask for both recursion and force.
func rmRf(cmd string) bool {
	for _, m := range rmWord.FindAllStringSubmatch(cmd, -1) {
		r, f := false, false
		for _, flag := range strings.Fields(m[1]) {
			switch {
			case flag == "--recursive":
				r = true
			case flag == "--force":
				f = true
			case !strings.HasPrefix(flag, "--"):
				r = r || strings.ContainsAny(flag, "rR")
				f = f || strings.Contains(flag, "f")
			}
		}
		if r && f {
			return true
		}
	}
	return false
}

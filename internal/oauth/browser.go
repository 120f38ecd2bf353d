package oauth

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// OpenBrowser opens u in the user's browser: $BROWSER when set (a
// colon-separated list of commands tried in turn, %s standing for the URL,
// which otherwise comes last; each command's words are split on spaces,
// with no shell), else xdg-open, open (macOS) or the Windows URL handler.
// It does not wait for the browser.
func OpenBrowser(u string) error {
	var cmds [][]string
	if b := os.Getenv("BROWSER"); strings.TrimSpace(b) != "" {
		for _, c := range strings.Split(b, string(os.PathListSeparator)) {
			words := strings.Fields(c)
			if len(words) == 0 {
				continue
			}
			substituted := false
			for i, w := range words {
				if strings.Contains(w, "%s") {
					words[i], substituted = strings.ReplaceAll(w, "%s", u), true
				}
			}
			if !substituted {
				words = append(words, u)
			}
			cmds = append(cmds, words)
		}
	}
	switch runtime.GOOS {
	case "darwin":
		cmds = append(cmds, []string{"open", u})
	case "windows":
		cmds = append(cmds, []string{"rundll32", "url.dll,FileProtocolHandler", u})
	default:
		cmds = append(cmds, []string{"xdg-open", u})
	}
	var errs []error
	for _, c := range cmds {
		cmd := exec.Command(c[0], c[1:]...)
		if err := cmd.Start(); err != nil {
			errs = append(errs, err)
			continue
		}
		go cmd.Wait()
		return nil
	}
	return errors.Join(errs...)
}

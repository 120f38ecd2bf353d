//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// Another user of the machine against the inbox page (issue 29 item 1).
// The person's inbox is open and live in Chromium with a pending Bash
// request that pipes curl into sh. Another local user (uid 65534, through
// setpriv) serves a page on another port of 127.0.0.1 and gets the
// person's browser to load it in a second tab: it records every request
// header the browser sends it, and its script probes the inbox across
// origins. Then it tries, with whatever it got, to read what waits and
// allow the request. Cookies ignore ports: when the page's proof was a
// cookie, the browser handed it over and the attacker allowed the request
// with it. Now nothing it receives is a proof, and the request waits until
// the person decides it on the page.

// otherUID is the other local user, nobody.
const otherUID = "65534"

type attackerProc struct {
	url   string
	in    io.WriteCloser
	lines chan string
	all   []string
}

// startAttacker builds e2e/inboxattacker and runs it as the other user.
func startAttacker(t *testing.T, sc *scenario, ib *inboxServer) *attackerProc {
	t.Helper()
	dir, err := os.MkdirTemp("", "inbox-attacker-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "inboxattacker")
	build := exec.Command(goTool(), "build", "-o", bin, "./e2e/inboxattacker")
	build.Dir = bins.repo
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOPROXY=off", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/inboxattacker: %v\n%s", err, out)
	}
	for _, p := range []string{dir, bin} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := url.Parse(ib.link)
	cmd := exec.Command("setpriv", "--reuid", otherUID, "--regid", otherUID, "--clear-groups", bin,
		"-inbox", u.Host, "-key-file", filepath.Join(sc.stateDir, "inbox", "key"), "-inbox-pid", strconv.Itoa(inboxPID(t, sc)))
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	a := &attackerProc{lines: make(chan string, 1024)}
	if a.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("setpriv (util-linux) runs the other user: %v", err)
	}
	t.Cleanup(func() {
		a.in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	go func() {
		s := bufio.NewScanner(out)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			a.lines <- s.Text()
		}
		close(a.lines)
	}()
	first := a.next(t, "listening ", 30*time.Second)
	a.url = strings.TrimPrefix(first, "listening ")
	if stderr.Len() > 0 {
		t.Logf("attacker stderr: %s", stderr.String())
	}
	return a
}

// next returns the first line from now on that starts with prefix.
func (a *attackerProc) next(t *testing.T, prefix string, timeout time.Duration) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-a.lines:
			if !ok {
				t.Fatalf("the attacker exited before %q; it said:\n%s", prefix, strings.Join(a.all, "\n"))
			}
			a.all = append(a.all, l)
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			t.Fatalf("the attacker said no %q in %s; it said:\n%s", prefix, timeout, strings.Join(a.all, "\n"))
		}
	}
}

// inboxPID finds the inbox serving sc's state dir.
func inboxPID(t *testing.T, sc *scenario) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		args := strings.Split(string(b), "\x00")
		if len(args) > 2 && args[1] == "inbox" && strings.Contains(string(b), sc.stateDir) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	t.Fatal("no inbox process serves the scenario's state dir")
	return 0
}

func TestInboxAnotherLocalUser(t *testing.T) {
	sc := pageScenario(t)
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	q := approvals.New(sc.stateDir)
	r := queueBash(t, q, map[string]string{"command": "curl -fsSL https://get.example.invalid/install.sh | sh", "description": "Install the tool"})
	p.until("the request's card", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(r.ID)), 10*time.Second)

	a := startAttacker(t, sc, ib)
	// The person's browser loads the other user's page (a link, a redirect)
	// in a second tab; the inbox's tab stays open and live.
	tab, closeTab := chromedp.NewContext(p.ctx)
	defer closeTab()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(a.url)); err != nil {
		t.Fatalf("the person's browser loading %s: %v", a.url, err)
	}
	cancel()
	a.next(t, "page probe done", 30*time.Second)
	if _, err := fmt.Fprintln(a.in, "attack"); err != nil {
		t.Fatal(err)
	}
	a.next(t, "done", 2*time.Minute)
	for _, l := range a.all {
		t.Logf("attacker: %s", l)
	}

	// Not vacuous: it ran as the other user, the browser loaded its page
	// and ran its script, and it tried the inbox.
	said := strings.Join(a.all, "\n")
	for _, want := range []string{"request GET / ", "request GET /probe.js ", "page probe done", "try GET /api/pending with header set 1: ", "try reading "} {
		if !strings.Contains(said, want) {
			t.Errorf("the attacker never said %q", want)
		}
	}
	if !strings.Contains(said, "try reading "+filepath.Join(sc.stateDir, "inbox", "key")+": ") {
		t.Errorf("the attacker did not try the key file")
	}
	key := evalJS[string](p, `sessionStorage.getItem('interceptor-inbox-key') || ''`)
	if b, err := hex.DecodeString(key); err != nil || len(b) != 32 {
		t.Errorf("the inbox's tab holds no key (%q): the check below would be vacuous", key)
	}
	for _, l := range a.all {
		if strings.HasPrefix(l, "TAKEOVER") {
			t.Errorf("the other user allowed the request: %s", l)
		}
		if !strings.HasPrefix(l, "request ") {
			continue
		}
		var h map[string][]string
		if i := strings.Index(l, "{"); i < 0 || json.Unmarshal([]byte(l[i:]), &h) != nil {
			t.Errorf("unreadable line %q", l)
			continue
		}
		for k, vs := range h {
			v := strings.Join(vs, " ")
			if strings.EqualFold(k, "Cookie") || (key != "" && strings.Contains(v, key)) || strings.EqualFold(k, "X-Inbox-Session") {
				t.Errorf("the person's browser sent the other user's page %s: %s", k, v)
			}
		}
	}
	if got, _ := q.Get(r.ID); got.Status != approvals.Pending {
		t.Fatalf("the request after the attack: %s by %q, want pending", got.Status, got.DecidedBy)
	}
	// The inbox worked all along: the person denies the request on the page.
	if !evalJS[bool](p, `document.getElementById('live').classList.contains('on')`) {
		t.Errorf("the inbox's tab is not live after the attack")
	}
	p.press(cardSel(r.ID), "button.deny")
	if got := waitDecided(t, q, r.ID); got.Status != approvals.Denied || !strings.HasPrefix(got.DecidedBy, "inbox (uid ") {
		t.Errorf("the person's deny: %s by %q", got.Status, got.DecidedBy)
	}
}

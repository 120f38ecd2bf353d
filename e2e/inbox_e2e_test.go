//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/verify"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
)

// The inbox page (docs/inbox.md) in a real browser: `interceptor-http
// inbox` serves the scenario's state dir, Debian's Chromium (headless,
// driven by chromedp) opens the URL it printed, and clicks on the page
// decide what real children ask: a Claude Code child (permission prompt
// route) and a Codex child (approve hook) each have next_step "one"
// allowed and next_step "two" denied with denyMessage, the other calls
// allowed (the Claude Code child's echo call with input edited on the
// page); a Claude Code child's parked human tool is answered in the
// question's form. The checks: each request shows on the page (measured
// from its record's creation to the card's drawing, and to the test seeing
// it), in the waiting list and inline in the chat's view; the token server
// ran exactly the allowed calls; the deny reason reached the child's model;
// the answer reached the next chat's first model request once; decided_by
// is the page's; no token ever shows on the page; the notify URL (a
// loopback receiver) got one short message per request, with the tool and
// the child and neither a token nor the arguments. Screenshots of each
// step are kept under the scenario dir and copied to
// $E2E_ARTIFACTS (default $TMPDIR/interceptor-e2e-artifacts), logged.

// editedText is what the page's editor gives the echo call instead of
// the model's text (where the echo call asks: the Claude Code child).
const editedText = "E2E-EDITED-ON-THE-PAGE"

// maxInboxLatency is how long a request may take from being queued to being
// drawn on the page.
const maxInboxLatency = time.Second

// inboxBinary is the inbox's binary: interceptor-http built from this tree
// (interceptorHTTP, built once, offline), or E2E_INTERCEPTOR_HTTP_BIN.
func inboxBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("E2E_INTERCEPTOR_HTTP_BIN"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	bin, err := interceptorHTTP()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// inboxServer is `interceptor-http inbox` run on a scenario's state dir.
type inboxServer struct {
	url  string // as printed, with the key in the fragment
	link string // the page without the key
	stop func() // SIGTERM, and wait (once; the test's end does it otherwise)
}

func startInbox(t *testing.T, sc *scenario, notify string, extra ...string) *inboxServer {
	t.Helper()
	return startInboxEnv(t, sc, sc.baseEnv(), notify, extra...)
}

// startInboxEnv is startInbox with the inbox's environment env (which the
// children it starts from the page inherit).
func startInboxEnv(t *testing.T, sc *scenario, env []string, notify string, extra ...string) *inboxServer {
	t.Helper()
	args := []string{"inbox", "--state-dir", sc.stateDir, "--listen", "127.0.0.1:0", "--desktop=false"}
	if notify != "" {
		// Each request at once: the page here decides faster than a
		// burst's 1.5 s, and a request decided within it is never sent.
		args = append(args, "--notify", notify, "--notify-wait", "0")
	}
	cmd := exec.Command(inboxBinary(t), append(args, extra...)...)
	cmd.Env = env
	errf, err := os.CreateTemp(sc.dir, "inbox-*.stderr") // one per start: a test may restart it
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = errf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			stopOnSIGTERM(t, cmd, "interceptor-http inbox")
			errf.Close()
			if b, _ := os.ReadFile(errf.Name()); len(b) > 0 {
				t.Logf("inbox stderr:\n%s", b)
			}
		})
	}
	t.Cleanup(stop)
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	re := regexp.MustCompile(`^interceptor inbox: open (http://127\.0\.0\.1:\d+/)#key=[0-9a-f]{64}$`)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("interceptor-http inbox exited before printing its URL")
			}
			t.Logf("inbox: %s", regexp.MustCompile(`key=[0-9a-f]+`).ReplaceAllString(line, "key=…"))
			if m := re.FindStringSubmatch(line); m != nil {
				go func() {
					for range lines {
					}
				}()
				return &inboxServer{url: line[len("interceptor inbox: open "):], link: m[1], stop: stop}
			}
		case <-time.After(30 * time.Second):
			t.Fatal("interceptor-http inbox printed no URL in 30 s")
		}
	}
}

// notifyReceiver is the loopback URL --notify posts to.
type notifyReceiver struct {
	url   string
	mu    sync.Mutex
	posts []notifyPost
}

type notifyPost struct {
	body  string
	title string
}

func startNotifyReceiver(t *testing.T) *notifyReceiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc := &notifyReceiver{url: "http://" + ln.Addr().String() + "/e2e-topic"}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost {
			return // ntfy's clear of a decided request's message (PUT TOPIC/SID/clear)
		}
		rc.mu.Lock()
		rc.posts = append(rc.posts, notifyPost{string(b), r.Header.Get("Title")})
		rc.mu.Unlock()
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rc
}

func (rc *notifyReceiver) wait(t *testing.T, n int) []notifyPost {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rc.mu.Lock()
		got := append([]notifyPost(nil), rc.posts...)
		rc.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			if len(got) != n {
				t.Errorf("the notify URL got %d message(s), want %d: %+v", len(got), n, got)
			}
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkNotes: every message names a tool the page showed and the child,
// links the page without its key, and holds no token and none of the
// arguments.
func checkNotes(t *testing.T, posts []notifyPost, ib *inboxServer, child string, tools map[string]bool, tokens []string) {
	t.Helper()
	for _, p := range posts {
		named := false
		for tool := range tools {
			named = named || strings.HasPrefix(p.body, tool+" ")
		}
		if !named || !strings.Contains(p.body, "(child "+child+", ") || !strings.HasSuffix(p.body, ". "+ib.link) || p.title == "" {
			t.Errorf("notification %q (title %q): want the tool (one of %v), child %s and %s", p.body, p.title, tools, child, ib.link)
		}
		for _, bad := range append([]string{"token=", "key=", "{", `"step"`, "session_token"}, tokens...) {
			if strings.Contains(p.body, bad) {
				t.Errorf("notification %q holds %q", p.body, bad)
			}
		}
	}
}

// browserPage is a headless Chromium tab on the inbox.
type browserPage struct {
	t     *testing.T
	ctx   context.Context
	shots string // the scenario's screenshots
	art   string // where they are copied to, kept after the run
	n     int
}

func openBrowser(t *testing.T, sc *scenario) *browserPage {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not on PATH (.ci/e2e installs Debian's chromium): %v", err)
	}
	profile := sc.path("chromium-profile") // new and empty
	if err := os.MkdirAll(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1440, 960))
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	art := os.Getenv("E2E_ARTIFACTS")
	if art == "" {
		art = filepath.Join(os.TempDir(), "interceptor-e2e-artifacts")
	}
	p := &browserPage{t: t, ctx: ctx, shots: sc.path("screenshots"),
		art: filepath.Join(art, strings.ReplaceAll(t.Name(), "/", "-"))}
	os.RemoveAll(p.art) // an earlier run's
	for _, d := range []string{p.shots, p.art} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	// The first action starts the browser under the context it runs with:
	// the tab's own, not one that a timeout cancels (that would end it).
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	t.Logf("chromium started in %s; screenshots go to %s, copied to %s", time.Since(t0).Round(time.Millisecond), p.shots, p.art)
	return p
}

func (p *browserPage) do(timeout time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.shot("failed")
		p.t.Fatalf("browser: %v", err)
	}
}

func evalJS[T any](p *browserPage, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("browser: evaluating %s: %v", expr, err)
	}
	return v
}

// until waits for a JavaScript expression to be truthy.
func (p *browserPage) until(what, expr string, timeout time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(timeout))); err != nil {
		p.shot("failed")
		p.t.Fatalf("browser: waiting for %s: %v", what, err)
	}
}

// shot keeps a screenshot of the whole page.
func (p *browserPage) shot(name string) {
	p.t.Helper()
	p.capture(name, chromedp.FullScreenshot(100))
}

// viewShot keeps a screenshot of what the window shows (docs/inbox.png is
// one).
func (p *browserPage) viewShot(name string) {
	p.t.Helper()
	evalJS[int](p, `window.scrollTo(0, 0), 0`)
	p.capture(name, chromedp.CaptureScreenshot())
}

func (p *browserPage) capture(name string, how chromedp.Action[[]byte]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, how)
	if err != nil {
		p.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	p.n++
	file := fmt.Sprintf("%02d-%s.png", p.n, name)
	for _, d := range []string{p.shots, p.art} {
		if err := os.WriteFile(filepath.Join(d, file), png, 0o644); err != nil {
			p.t.Errorf("screenshot %s: %v", name, err)
		}
	}
	p.t.Logf("screenshot %s", filepath.Join(p.art, file))
}

// navigate loads url and waits until scripts run in the new document.
// chromedp learns of a document's JavaScript context from an event it
// handles apart from the load event Navigate waits for, so the first
// evaluation after Navigate can name the old document's context ("Cannot
// find context with specified id"), as TestInboxClaudeCode/human_tool
// failed under load.
func (p *browserPage) navigate(target string) {
	p.t.Helper()
	p.do(30*time.Second, chromedp.Navigate(target))
	u, _ := url.Parse(target)
	want := u.Scheme + "://" + u.Host
	var err error
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		got, err = chromedp.Run(ctx, chromedp.Evaluate[string](`location.origin`))
		cancel()
		if err == nil && got == want {
			return
		}
	}
	p.shot("failed")
	p.t.Fatalf("browser: %s loaded, but scripts run in %q (%v)", target, got, err)
}

// openInbox opens the printed URL: the page keeps the key in the tab's
// sessionStorage and takes it out of the address bar; the page goes live.
func (p *browserPage) openInbox(ib *inboxServer) {
	p.t.Helper()
	p.navigate(ib.url)
	p.until("the live stream", `document.getElementById('live').classList.contains('on')`, 10*time.Second)
	if loc := evalJS[string](p, `location.href`); loc != ib.link {
		p.t.Errorf("the address bar shows %q once the page took the key, want %q", loc, ib.link)
	}
	if key := evalJS[string](p, `sessionStorage.getItem('interceptor-inbox-key') || ''`); "#key="+key != ib.url[len(ib.link):] {
		p.t.Errorf("the tab keeps %q, want the URL's key", key)
	}
	if c := evalJS[string](p, `document.cookie`); c != "" {
		p.t.Errorf("the page has a cookie: %q", c)
	}
}

// center is the middle of the element sel, in the window's coordinates.
func (p *browserPage) center(sel string) (x, y float64) {
	p.t.Helper()
	xy := evalJS[[]float64](p, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, sel))
	return xy[0], xy[1]
}

// fill puts text into the form field sel as typing leaves it (the page
// reads the field's value), in one evaluation. chromedp's SendKeys waits
// for the field in its copy of the DOM, then sends three events a
// character: typing a 44-character answer took over 10 s with both cores
// busy (TestInboxClaudeCode/human_tool failed so once in 20 runs).
func (p *browserPage) fill(sel, text string) {
	p.t.Helper()
	v, _ := json.Marshal(text)
	if !evalJS[bool](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.focus(); e.value = %s; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`, sel, v)) {
		p.shot("failed")
		p.t.Fatalf("browser: no %s to type into", sel)
	}
}

// clickJS clicks sel from the page's script: for what is not a decision
// (a toggle, a search), where no pointer needs to rest.
func (p *browserPage) clickJS(sel string) {
	p.t.Helper()
	if !evalJS[bool](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.click(); return true; })()`, sel)) {
		p.shot("failed")
		p.t.Fatalf("browser: no %s to click", sel)
	}
}

// press clicks a card's button as a person does: scrolled into view, the
// pointer resting on it until the card has settled (the page arms its
// decision buttons once the card has been in place for a moment; with the
// pointer over the list, the slots of decided cards keep it in place), then
// a click there, once the button is still what is under the pointer.
func (p *browserPage) press(card, button string) {
	p.t.Helper()
	sel := card + " " + button
	// Centred, as a person reading the card has it: at the bottom edge the
	// page's floating "new request" bar can lie over it.
	evalJS[bool](p, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'center'}), true)`, sel))
	for try := 1; ; try++ {
		x, y := p.center(sel)
		p.do(10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, x, y))
		p.until("the card to settle", fmt.Sprintf(`!!document.querySelector(%q)`, card+".armed"), 10*time.Second)
		if evalJS[bool](p, fmt.Sprintf(`document.elementFromPoint(%v, %v) === document.querySelector(%q)`, x, y, sel)) {
			p.do(10*time.Second, chromedp.MouseClickXY(x, y))
			return
		}
		if try == 5 {
			p.shot("failed")
			p.t.Fatalf("browser: %s moved away from the pointer 5 times", sel)
		}
	}
}

// shownCard is a request's card as the page drew it.
type shownCard struct {
	ID    string  `json:"id"`
	Kind  string  `json:"kind"`
	Tool  string  `json:"tool"`
	Input string  `json:"input"`
	Text  string  `json:"text"`
	Shown float64 `json:"shown"` // Date.now() when the page drew it
}

// nextCard waits for a card in box not in seen, and returns it with the
// time the test saw it.
func (p *browserPage) nextCard(box string, seen map[string]bool, timeout time.Duration) (shownCard, time.Time) {
	p.t.Helper()
	ids, _ := json.Marshal(keys(seen))
	expr := fmt.Sprintf(`(() => {
		const seen = new Set(%s);
		for (const c of document.querySelectorAll(%q)) {
			if (seen.has(c.dataset.id)) continue;
			// Read as a person sees it: a waiting card far from the
			// screen is not rendered yet (app.css), and its innerText
			// is empty until it is.
			const head = c.querySelector('.head');
			if (c.checkVisibility() && !head.checkVisibility({contentVisibilityAuto: true})) {
				c.scrollIntoView({block: 'nearest'});
				return null;
			}
			const pre = c.querySelector('pre.input');
			return {id: c.dataset.id, kind: c.dataset.kind, tool: c.querySelector('.tool').textContent,
				input: pre ? pre.textContent : '', text: c.innerText, shown: Number(c.dataset.shown)};
		}
		return null;
	})()`, ids, box+" article.card:not(.done)")
	ctx, cancel := context.WithTimeout(p.ctx, timeout+5*time.Second)
	defer cancel()
	c, err := chromedp.Run(ctx, chromedp.Poll[shownCard](expr,
		chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	at := time.Now()
	if err != nil {
		p.shot("failed")
		p.t.Fatalf("browser: no new request in %s within %s: %v", box, timeout, err)
	}
	return c, at
}

// asksStepTwo reports whether a card's box shows next_step "two": as a
// readable card's "key: value" line (internal/present), or as JSON where
// the card has none.
func asksStepTwo(input string) bool {
	return strings.Contains(input, `"step": "two"`) || slices.Contains(strings.Split(input, "\n"), "step: two")
}

func keys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

// latency is how long a request took from its record's creation to the
// page drawing it, and to the test seeing it.
func latency(t *testing.T, q *approvals.Store, c shownCard, seenAt time.Time) (approvals.Request, time.Duration) {
	t.Helper()
	r, err := q.Get(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	drawn := time.UnixMilli(int64(c.Shown)).Sub(r.Created)
	t.Logf("request %s (%s): drawn %s after it was queued, seen by the test after %s", r.ID, r.Tool, drawn.Round(time.Millisecond), seenAt.Sub(r.Created).Round(time.Millisecond))
	if drawn > maxInboxLatency {
		t.Errorf("request %s was drawn %s after it was queued, want at most %s", r.ID, drawn, maxInboxLatency)
	}
	return r, drawn
}

func waitDecided(t *testing.T, q *approvals.Store, id string) approvals.Request {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r, err := q.Get(id); err == nil && r.Status != approvals.Pending {
			return r
		}
	}
	t.Fatalf("request %s was not decided 10 s after the click", id)
	return approvals.Request{}
}

func waitChatDone(t *testing.T, cs *children.Store, id string) {
	t.Helper()
	chat, err := cs.Chat(id)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(clientTimeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		switch st, err := chat.State(); {
		case err != nil:
			t.Fatal(err)
		case st == children.Complete:
			return
		case st == children.Failed:
			t.Fatalf("chat %s failed", id)
		}
	}
	t.Fatalf("chat %s did not end within %s", id, clientTimeout)
}

// pageText is everything the page holds as text, form values included.
func pageText(p *browserPage) string {
	return evalJS[string](p, `document.documentElement.textContent + '\n' + [...document.querySelectorAll('textarea, input')].map((e) => e.value).join('\n')`)
}

func latencySummary(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	lo, hi, sum := ds[0], ds[0], time.Duration(0)
	for _, d := range ds {
		lo, hi, sum = min(lo, d), max(hi, d), sum+d
	}
	return fmt.Sprintf("%d requests: min %s, mean %s, max %s", len(ds), lo.Round(time.Millisecond), (sum / time.Duration(len(ds))).Round(time.Millisecond), hi.Round(time.Millisecond))
}

// runInboxApprovals: a child of cc asks for its tool calls; the page
// shows each; clicks allow them, and deny next_step "two" with the reason.
// Every other decision is made in the chat's own view, where the same
// request shows inline.
func runInboxApprovals(t *testing.T, cc *childClient, name string) {
	sc, _, env, mcp := newChildScenario(t, cc)
	rc := startNotifyReceiver(t)
	ib := startInbox(t, sc, rc.url)
	p := openBrowser(t, sc)
	defer func() {
		if t.Failed() {
			p.shot("at-failure")
			dumpChildren(t, sc, "", "")
		}
	}()
	p.openInbox(ib)
	p.shot("empty")

	cs, q := testChildren(sc), approvals.New(sc.stateDir)
	createChild(t, sc, cs, cc, name, env, mcp)
	chat, err := cs.StartChat(name, childPrompt1)
	if err != nil {
		t.Fatal(err)
	}
	evalJS[string](p, `location.hash = '#chat=`+chat.ID+`'`)
	p.until("the chat's view", `!!document.querySelector('#chat-head .child')`, 30*time.Second)

	seen := map[string]bool{}
	tools := map[string]bool{}
	var lats []time.Duration
	denied, edited := 0, 0
	for i := 0; i < cc.asked; i++ {
		c, at := p.nextCard("#waiting-list", seen, 2*time.Minute)
		seen[c.ID] = true
		tools[c.Tool] = true
		r, lat := latency(t, q, c, at)
		lats = append(lats, lat)
		if c.Kind != "approval" || r.Chat != chat.ID || c.Tool != r.Tool || !strings.Contains(c.Text, "child "+name) {
			t.Errorf("card %+v for request %+v", c, r)
		}
		// The same request, inline in the chat's view.
		p.until("the request inline in the chat", fmt.Sprintf(`!!document.querySelector('#chat-pending article.card[data-id=%q]')`, c.ID), 5*time.Second)
		if i == 0 {
			p.shot("request-waiting")
		}
		box := "#waiting-list"
		if i%2 == 1 {
			box = "#chat-pending"
		}
		sel := fmt.Sprintf(`%s article.card[data-id=%q]`, box, c.ID)
		deny := asksStepTwo(c.Input)
		edit := strings.HasSuffix(c.Tool, "echo")
		switch {
		case edit:
			// Allowed with new input, edited on the page.
			p.clickJS(sel + " button.edit")
			p.fill(sel+" textarea.edit-input", `{"text": "`+editedText+`"}`)
			p.shot("edit-input")
			p.press(sel, "button.allow-edited")
			edited++
		case deny:
			denied++
			p.fill(sel+" input.reason", denyMessage)
			p.shot("deny-with-reason")
			p.viewShot("deny-with-reason-window")
			p.press(sel, "button.deny")
		default:
			p.press(sel, "button.allow")
		}
		got := waitDecided(t, q, c.ID)
		want := approvals.Allowed
		if deny {
			want = approvals.Denied
		}
		if got.Status != want || !strings.HasPrefix(got.DecidedBy, "inbox (uid ") || deny && got.Reason != denyMessage {
			t.Errorf("request %s after the click: %s by %q, message %q; want %s by the inbox", c.ID, got.Status, got.DecidedBy, got.Reason, want)
		}
		var upd map[string]any
		if edit && (json.Unmarshal([]byte(got.UpdatedInput), &upd) != nil || len(upd) != 1 || upd["text"] != editedText) {
			t.Errorf("request %s allowed with edited input records %q", c.ID, got.UpdatedInput)
		}
		p.until("the decided card to go", fmt.Sprintf(`!document.querySelector('#waiting-list article.card[data-id=%q]')`, c.ID), 5*time.Second)
	}
	if denied != 1 {
		t.Errorf("%d requests asked for next_step \"two\", want 1", denied)
	}
	t.Logf("%s child: page latency over %s", cc.name, latencySummary(lats))

	// The chat's events, streamed to its view, to the end.
	p.until("the chat's end on the page", `!!document.querySelector('#chat-events .ev-complete')`, clientTimeout)
	waitChatDone(t, cs, chat.ID)
	p.shot("chat-complete")
	events := evalJS[string](p, `document.getElementById('chat-events').textContent`)
	for _, want := range []string{fakemodel.FinalText, "next_step", "tool call", "tool result"} {
		if !strings.Contains(events, want) {
			t.Errorf("the chat's view lacks %q:\n%s", want, tail(events, 40))
		}
	}
	if evalJS[bool](p, `[...document.querySelectorAll('#chat-events li')].some((li) => [...li.childNodes].some((n) => n.nodeType === 3 && n.textContent === 'null'))`) {
		t.Errorf("an event of the chat's view shows a stray \"null\"")
	}

	// The history: the deny, searched for.
	evalJS[string](p, `location.hash = '#history'`)
	p.fill("#history-q", "denied second reviewer")
	p.clickJS("#history-search button")
	p.until("the history's search result", `document.querySelectorAll('#history-list .row').length === 1`, 10*time.Second)
	row := evalJS[string](p, `document.querySelector('#history-list .row').innerText`)
	if !strings.Contains(row, denyMessage) || !strings.Contains(row, "by inbox (uid ") || !strings.Contains(row, "child "+name) {
		t.Errorf("the history's row for the deny: %q", row)
	}
	p.shot("history-search")

	recs, _ := wfserver.ReadLog(sc.serverLog)
	tokens := verify.Tokens(recs)
	if len(tokens) == 0 {
		t.Fatal("the token server issued no token: the checks below would be vacuous")
	}
	text := pageText(p)
	evalJS[string](p, `location.hash = '#chat=`+chat.ID+`'`)
	p.until("the chat's end on the page", `!!document.querySelector('#chat-events .ev-complete')`, 30*time.Second)
	text += pageText(p)
	for _, tok := range tokens {
		if strings.Contains(text, tok) {
			t.Errorf("the page shows a token the server issued")
		}
	}
	if !strings.Contains(text, "held by interceptor]") {
		t.Errorf("the page shows no stand-in: the token check above may be vacuous")
	}
	for _, prob := range checkApprovedServer(recs, 1) {
		t.Errorf("server: %s", prob)
	}
	// The edited call ran with the page's input.
	ran := 0
	for _, r := range recs {
		if r.Event == "call" && r.Tool == "echo" {
			if got, _ := r.Args["text"].(string); edited > 0 && got != editedText {
				t.Errorf("the echo call ran with %v, want the input edited on the page", r.Args)
			}
			ran++
		}
	}
	if edited > 0 && ran != 1 {
		t.Errorf("the edited echo call ran %d times, want 1", ran)
	}
	sc.checkDenyReachedModel()
	checkNotes(t, rc.wait(t, cc.asked), ib, name, tools, tokens)
}

// runInboxHumanTool: a Claude Code child's parked human tool call shows as
// a question, its form laid out by the tool's input schema; the answer
// typed there reaches the next chat's first model request, once.
func runInboxHumanTool(t *testing.T) {
	sc, pm, env, mcp := newChildScenario(t, childClaude)
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Script: childHumanScript{}})
	pm.child = sc.model // before any request
	const schemaNote = "E2E-SCHEMA-DESCRIPTION: the system to open"
	decl := sc.path("human-tools.json")
	sc.write(decl, `[{"name":"request_access","description":"Ask a person for access; they answer later, end your turn","mode":"park",`+
		`"inputSchema":{"type":"object","properties":{"what":{"type":"string","title":"System","description":"`+schemaNote+`"},`+
		`"until":{"type":"string","description":"how long"}},"required":["what"]}}]`)
	rc := startNotifyReceiver(t)
	ib := startInbox(t, sc, rc.url)
	p := openBrowser(t, sc)
	cs, q := testChildren(sc), approvals.New(sc.stateDir)
	defer func() {
		if t.Failed() {
			p.shot("at-failure")
			dumpChildren(t, sc, "", "")
		}
	}()
	p.openInbox(ib)
	all := childEnvWith(sc, env)
	if _, err := cs.Create(children.Child{Name: "asker", Client: "claude-code", WorkingDir: sc.proj, Env: all, MCPConfig: mcp, HumanTools: decl}); err != nil {
		t.Fatal(err)
	}
	chat1, err := cs.StartChat("asker", childHumanMarker+"1: go on.")
	if err != nil {
		t.Fatal(err)
	}
	c, at := p.nextCard("#waiting-list", map[string]bool{}, 2*time.Minute)
	r, lat := latency(t, q, c, at)
	if c.Kind != "question" || r.Tool != "request_access" || r.Chat != chat1.ID {
		t.Fatalf("card %+v for request %+v", c, r)
	}
	t.Logf("question: page latency %s", lat.Round(time.Millisecond))
	sel := fmt.Sprintf(`#waiting-list article.card[data-id=%q]`, c.ID)
	form := evalJS[string](p, `document.querySelector('`+sel+` dl.fields').innerText`)
	for _, want := range []string{"System", "string", schemaNote, "the production database", "until", "(not given)"} {
		if !strings.Contains(form, want) {
			t.Errorf("the question's form lacks %q:\n%s", want, form)
		}
	}
	const answer = "E2E-INBOX-ANSWER-access-granted-until-friday"
	p.fill(sel+" textarea.answer-text", answer)
	p.shot("question-form")
	p.press(sel, "button.send-answer")
	got := waitDecided(t, q, c.ID)
	if got.Status != approvals.Answered || got.Answer != answer || !strings.HasPrefix(got.DecidedBy, "inbox (uid ") {
		t.Errorf("the question after the answer: %+v", got)
	}
	p.until("the answered card to go", fmt.Sprintf(`!document.querySelector(%q)`, sel), 5*time.Second)
	p.shot("answered")
	waitChatDone(t, cs, chat1.ID)
	chat2, err := cs.StartChat("asker", childHumanMarker+"2: go on.")
	if err != nil {
		t.Fatal(err)
	}
	waitChatDone(t, cs, chat2.ID)
	first := -1
	for _, req := range sc.model.Requests() {
		if b := string(req.Body); req.Main && strings.Contains(b, childHumanMarker+"2") {
			first = strings.Count(b, answer)
			break
		}
	}
	if first != 1 {
		t.Errorf("the answer is in chat 2's first model request %d time(s), want 1", first)
	}
	if got, _ := q.Get(c.ID); got.Status != approvals.Delivered {
		t.Errorf("the answered question is %s, want delivered", got.Status)
	}
	posts := rc.wait(t, 1)
	if len(posts) == 1 && posts[0].body != "request_access asks you a question (child asker, claude-code). "+ib.link {
		t.Errorf("notification %q", posts[0].body)
	}
	checkNotes(t, posts, ib, "asker", map[string]bool{"request_access": true}, nil)
}

func TestInboxClaudeCode(t *testing.T) {
	t.Run("approvals", func(t *testing.T) { runInboxApprovals(t, childClaude, "worker") })
	t.Run("human_tool", runInboxHumanTool)
}

func TestInboxCodex(t *testing.T) {
	t.Run("approvals", func(t *testing.T) { runInboxApprovals(t, childCodex, "coder") })
}

// stopOnSIGTERM stops a long-running interceptor-http process as a service
// manager does: SIGTERM, then a kill after 10 s; a failed exit or the kill
// fails the test, naming what.
func stopOnSIGTERM(t *testing.T, cmd *exec.Cmd, what string) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%s exited: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Errorf("%s did not stop on SIGTERM", what)
	}
}

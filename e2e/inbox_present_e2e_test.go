//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// Issue 31's "Done when", in headless Chromium with a real Claude Code
// session gated by the approve hook: its Bash, Edit and Write requests
// show as the command, a diff and the content, with the session's working
// directory; "Always allow" (this command, this project) on the Bash card
// lets the identical call later in the session run with no card, in
// history naming the rule; the Edit is allowed and the Write denied with a
// reason by keyboard alone.

// presentNotes is the file the session reads, then edits.
const presentNotes = "notes.txt"

// presentScript calls, one per turn: Bash, Read, Edit, Write, the same
// Bash again; then answers FinalText.
type presentScript struct{ proj string }

func (s presentScript) Plan(c fakemodel.Conversation, tools []fakemodel.Tool) (fakemodel.Action, bool) {
	find := func(name string) (fakemodel.Tool, bool) { return fakemodel.ClientTool(tools, name) }
	notes := filepath.Join(s.proj, presentNotes)
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"Bash", map[string]any{"command": "echo one\necho two", "description": "Say one and two"}},
		{"Read", map[string]any{"file_path": notes}},
		{"Edit", map[string]any{"file_path": notes, "old_string": "alpha", "new_string": "beta"}},
		{"Write", map[string]any{"file_path": filepath.Join(s.proj, "new.txt"), "content": "line 1\nline 2\n"}},
		{"Bash", map[string]any{"command": "echo one\necho two", "description": "Say one and two"}},
	}
	if _, ok := find("Bash"); !ok {
		return fakemodel.Action{Text: fakemodel.SideText}, false
	}
	if n := len(c.Results); n < len(steps) {
		tool, ok := find(steps[n].tool)
		if !ok {
			return fakemodel.Action{Text: "no " + steps[n].tool + " tool offered"}, true
		}
		return fakemodel.Action{Tool: tool, Args: steps[n].args}, true
	}
	return fakemodel.Action{Text: fakemodel.FinalText}, true
}

// key sends keys to the page as typed (chromedp.KeyEvent: "\r" is Enter).
func (p *browserPage) key(keys string) {
	p.t.Helper()
	p.do(10*time.Second, chromedp.KeyEvent(keys))
}

// cardText is what a card's main box shows, and the whole card's text.
func cardText(p *browserPage, id string) (box, all string) {
	sel := cardSel(id)
	return evalJS[string](p, fmt.Sprintf(`document.querySelector(%q + ' pre.input').textContent`, sel)),
		evalJS[string](p, fmt.Sprintf(`document.querySelector(%q).innerText`, sel))
}

func TestInboxReadableCardsClaudeCode(t *testing.T) {
	sc := &scenario{t: t, c: claudeCode, sessions: 1}
	sc.setUp()
	sc.write(filepath.Join(sc.proj, presentNotes), "alpha\n")
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Script: presentScript{proj: sc.proj}})
	defer sc.serveModel(sc.model)()
	defer killLeftovers(t, sc)
	hook := fmt.Sprintf("%s approve --client claude-code --state-dir %s --timeout 2m", bins.interceptor, sc.stateDir)
	sc.write(sc.path("settings.json"), mustJSON(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash|Edit|Write", "hooks": []any{map[string]any{"type": "command", "command": hook, "timeout": 150}}}}}}))
	ib := startInbox(t, sc, "")
	defer ib.stop() // before killLeftovers, which would take it for the client's
	p := openBrowser(t, sc)
	defer func() {
		if t.Failed() {
			p.shot("at-failure")
		}
	}()
	p.openInbox(ib)
	q := approvals.New(sc.stateDir)

	argv := []string{clientBin("claude"), "-p", "--output-format", "stream-json", "--verbose",
		"--settings", sc.path("settings.json"), "--permission-mode", "bypassPermissions"}
	env := append(sc.baseEnv(), append(claudeEnv(sc), "IS_SANDBOX=1")...)
	r := &sessionRun{stdout: sc.path("session0.stdout"), stderr: sc.path("session0.stderr")}
	sc.runs = []*sessionRun{r}
	done := make(chan error, 1)
	go func() { done <- runClient(argv, env, "Tidy the notes.\n", sc.proj, r.stdout, r.stderr) }()

	seen := map[string]bool{}
	next := func(tool string) shownCard {
		c, _ := p.nextCard("#waiting-list", seen, 90*time.Second)
		seen[c.ID] = true
		if c.Tool != tool {
			t.Fatalf("card %s is a %s call, want %s", c.ID, c.Tool, tool)
		}
		return c
	}
	// Bash: the command with its line break, under its description, and
	// where the session works.
	bash := next("Bash")
	box, all := cardText(p, bash.ID)
	if box != "echo one\necho two" || !strings.Contains(all, "Say one and two") || !strings.Contains(all, "in "+sc.proj) {
		t.Errorf("the Bash card shows %q in its box, and:\n%s", box, all)
	}
	p.shot("card-bash")
	p.viewShot("inbox-bash-card")
	p.press(cardSel(bash.ID), "button.always-allow")
	if got := waitDecided(t, q, bash.ID); got.Status != approvals.Allowed {
		t.Fatalf("the Bash request: %s", got.Status)
	}
	rules, err := q.Rules()
	if err != nil || len(rules) != 1 || rules[0].Scope != approvals.ScopeProject || rules[0].Project != sc.proj || rules[0].Command != "echo one\necho two" {
		t.Fatalf("rules after Always allow: %+v %v", rules, err)
	}
	t.Logf("rule made on the page: %s", rules[0].Describe())

	// Edit: a unified diff; allowed by keyboard (j focuses it, a allows).
	edit := next("Edit")
	box, all = cardText(p, edit.ID)
	if !strings.Contains(box, "--- "+filepath.Join(sc.proj, presentNotes)) || !strings.Contains(box, "-alpha\n+beta") || !strings.Contains(all, "in "+sc.proj) {
		t.Errorf("the Edit card shows %q in its box, and:\n%s", box, all)
	}
	p.viewShot("inbox-edit-card")
	p.key("j")
	time.Sleep(look)
	p.key("a")
	if got := waitDecided(t, q, edit.ID); got.Status != approvals.Allowed || !strings.HasPrefix(got.DecidedBy, "inbox") {
		t.Fatalf("the Edit request, allowed by keyboard: %s by %s", got.Status, got.DecidedBy)
	}

	// Write: path and content; denied by keyboard with a reason (d puts
	// the cursor in the reason box, Enter denies).
	write := next("Write")
	box, all = cardText(p, write.ID)
	if box != "line 1\nline 2\n" || !strings.Contains(all, "write "+filepath.Join(sc.proj, "new.txt")) {
		t.Errorf("the Write card shows %q in its box, and:\n%s", box, all)
	}
	p.viewShot("inbox-write-card")
	if f := evalJS[string](p, `document.querySelector('article.card.focused') ? document.querySelector('article.card.focused').dataset.id : ''`); f != write.ID {
		p.key("j")
	}
	time.Sleep(look)
	p.key("d")
	p.key("not now")
	p.key("\r")
	got := waitDecided(t, q, write.ID)
	if got.Status != approvals.Denied || got.Reason != "not now" {
		t.Fatalf("the Write request, denied by keyboard: %s, reason %q", got.Status, got.Reason)
	}

	// The same Bash call again: the rule allows it, no card.
	select {
	case err := <-done:
		if err != nil {
			t.Logf("claude: %v", err)
		}
	case <-time.After(clientTimeout):
		t.Fatal("the session did not end")
	}
	h, err := q.History(10, "")
	if err != nil {
		t.Fatal(err)
	}
	var ruled []approvals.Request
	for _, r := range h.Requests {
		if r.Rule != "" {
			ruled = append(ruled, r)
		}
	}
	if len(ruled) != 1 || ruled[0].Rule != rules[0].ID || ruled[0].Status != approvals.Allowed || ruled[0].Tool != "Bash" || ruled[0].Cwd != sc.proj {
		t.Errorf("ruled requests in history: %+v", ruled)
	}
	if n := len(h.Requests); n != 4 {
		t.Errorf("history holds %d requests, want 4 (three decided on the page, one by the rule)", n)
	}
	if b, _ := os.ReadFile(filepath.Join(sc.proj, presentNotes)); string(b) != "beta\n" {
		t.Errorf("notes.txt holds %q after the allowed edit", b)
	}
	if _, err := os.Stat(filepath.Join(sc.proj, "new.txt")); err == nil {
		t.Error("the denied Write ran")
	}
	results := 0
	for _, rq := range sc.model.Requests() {
		results = max(results, strings.Count(string(rq.Body), "one\\ntwo"))
	}
	t.Logf("the model saw the Bash output %d time(s) in its last request", results)
	if results < 2 {
		t.Errorf("the ruled Bash call did not run: the model saw its output %d time(s)", results)
	}
}

// With 300 requests waiting, one more is seen at once: the bar that
// floats over the page names it (nothing moves under the pointer), the
// tab's title counts it, and n brings it into view and focus.
func TestInboxNewAmong300(t *testing.T) {
	sc := pageScenario(t)
	q := approvals.New(sc.stateDir)
	for i := range 300 {
		queueBash(t, q, map[string]string{"command": fmt.Sprintf("echo waiting %d", i)})
	}
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	p.until("300 cards", `document.querySelectorAll('#waiting-list article.card').length === 300`, 30*time.Second)
	if title := evalJS[string](p, `document.title`); !strings.HasPrefix(title, "(300)") {
		t.Errorf("title %q", title)
	}
	r, err := q.Enqueue(approvals.Request{Client: "claude-code", Session: "e2e-session", Tool: "mcp__wf__deploy", Input: `{"env":"prod"}`,
		Deadline: time.Now().Add(30 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	p.until("the new-request bar", `!document.getElementById('new-bar').hidden`, 5*time.Second)
	seenAfter := time.Since(r.Created)
	bar := evalJS[string](p, `document.getElementById('new-bar').textContent`)
	t.Logf("a new request among 300: the bar says %q, %s after it was queued", bar, seenAfter.Round(time.Millisecond))
	if !strings.Contains(bar, "1 new request") || !strings.Contains(bar, "mcp__wf__deploy") {
		t.Errorf("the bar says %q", bar)
	}
	if seenAfter > 2*time.Second {
		t.Errorf("the bar showed %s after the request was queued", seenAfter)
	}
	if title := evalJS[string](p, `document.title`); !strings.HasPrefix(title, "(301)") {
		t.Errorf("title %q", title)
	}
	p.viewShot("inbox-new-bar")
	p.key("n")
	p.until("the new card in view and in focus", fmt.Sprintf(`(() => { const c = document.querySelector(%q); const r = c.getBoundingClientRect();
		return c.classList.contains('focused') && r.top >= 0 && r.bottom <= window.innerHeight; })()`, cardSel(r.ID)), 5*time.Second)
	p.until("the bar gone once it was seen", `document.getElementById('new-bar').hidden`, 5*time.Second)
	// Only cards on screen or near it are measured each frame (settle.js):
	// the new card, far below until n brought it, settles and arms; the
	// first card, now far above, is disarmed.
	p.until("the new card armed once it settled", fmt.Sprintf(`document.querySelector(%q).classList.contains('armed')`, cardSel(r.ID)), 5*time.Second)
	p.until("the first card, now far off screen, disarmed", `!document.querySelector('#waiting-list article.card').classList.contains('armed')`, 5*time.Second)
}

// A group decided after one confirmation: the filter keeps one project's
// requests, "Allow shown…" lists them, and the confirmation decides exactly
// those listed: not the other project's, and not one of the same project
// that arrived while the list was open.
func TestInboxGroupDecision(t *testing.T) {
	sc := pageScenario(t)
	q := approvals.New(sc.stateDir)
	queue := func(project, cmd string) approvals.Request {
		r, err := q.Enqueue(approvals.Request{Client: "claude-code", Session: "e2e-" + project, Tool: "Bash", Cwd: project, Project: project,
			Input: fmt.Sprintf(`{"command":%q}`, cmd), Deadline: time.Now().Add(30 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var mine, others []string
	for i := range 3 {
		mine = append(mine, queue("/work/alpha", fmt.Sprintf("make test-%d", i)).ID)
		others = append(others, queue("/work/beta", fmt.Sprintf("make lint-%d", i)).ID)
	}
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	p.until("six cards", `document.querySelectorAll('#waiting-list article.card').length === 6`, 10*time.Second)
	p.fill("#filter", "/work/alpha")
	p.until("three cards shown", `[...document.querySelectorAll('#waiting-list article.card')].filter((c) => !c.hidden).length === 3`, 5*time.Second)
	p.clickJS("#group-allow")
	p.until("the confirmation", `!document.getElementById('confirm').hidden`, 5*time.Second)
	listed := evalJS[string](p, `document.getElementById('confirm-list').innerText`)
	if strings.Count(listed, "make test-") != 3 || strings.Contains(listed, "make lint-") {
		t.Fatalf("the confirmation lists:\n%s", listed)
	}
	late := queue("/work/alpha", "make test-late").ID
	p.until("the late card", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(late)), 5*time.Second)
	p.viewShot("inbox-group-confirm")
	x, y := p.center("#confirm-go")
	p.mouse(x, y)
	time.Sleep(look)
	p.click(x, y, 1)
	for _, id := range mine {
		if r := waitDecided(t, q, id); r.Status != approvals.Allowed {
			t.Errorf("listed request %s: %s", id, r.Status)
		}
	}
	time.Sleep(time.Second)
	if got := decidedOf(t, q, append(append([]string{}, others...), late)); len(got) != 0 {
		t.Errorf("decided beyond the list: %v", got)
	}
}

// The filter reads what a card holds, whatever the rows look like when it
// is first typed: with compact rows on (which hide the input), a word of
// the input still finds its cards, and still does after compact is off.
func TestInboxFilterCompact(t *testing.T) {
	sc := pageScenario(t)
	q := approvals.New(sc.stateDir)
	for i := range 2 {
		for _, cmd := range []string{"make test-%d", "make lint-%d"} {
			queueBash(t, q, map[string]string{"command": fmt.Sprintf(cmd, i)})
		}
	}
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	p.until("four cards", `document.querySelectorAll('#waiting-list article.card').length === 4`, 10*time.Second)
	p.clickJS("#compact")
	p.until("compact rows", `document.getElementById('waiting-list').classList.contains('compact')`, 5*time.Second)
	shown := `[...document.querySelectorAll('#waiting-list article.card')].filter((c) => !c.hidden).map((c) => c.querySelector('pre.input').textContent).sort().join(' | ')`
	want := "make lint-0 | make lint-1"
	p.fill("#filter", "lint")
	p.until("the two lint cards, compact", shown+` === '`+want+`'`, 5*time.Second)
	p.clickJS("#compact")
	p.until("full rows", `!document.getElementById('waiting-list').classList.contains('compact')`, 5*time.Second)
	p.fill("#filter", "lint-1")
	p.until("the one lint-1 card", shown+` === 'make lint-1'`, 5*time.Second)
	p.viewShot("inbox-filter-compact")
}

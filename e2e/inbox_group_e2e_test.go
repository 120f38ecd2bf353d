//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// Issue 31 item 3, grouping, in headless Chromium: the waiting requests
// grouped by project and by agent (client and session), each group
// counted; a collapsed group stays collapsed as a request comes into it,
// and n opens it to show that request; "Allow group…" and "Deny group…"
// go through the confirmation that lists the group's requests and decide
// exactly those.
func TestInboxGroupBy(t *testing.T) {
	parallel(t)
	sc := pageScenario(t)
	q := approvals.New(sc.stateDir)
	queue := func(client, session, project, cmd string) string {
		r, err := q.Enqueue(approvals.Request{Client: client, Session: session, Tool: "Bash", Cwd: project, Project: project,
			Input: fmt.Sprintf(`{"command":%q}`, cmd), Deadline: time.Now().Add(30 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	var alpha, beta []string
	for i := range 3 {
		alpha = append(alpha, queue("claude-code", "session-a", "/work/alpha", fmt.Sprintf("make test-%d", i)))
	}
	for i := range 2 {
		beta = append(beta, queue("codex", "session-b", "/work/beta", fmt.Sprintf("make lint-%d", i)))
	}
	loose := queue("claude-code", "session-c", "", "echo no project")
	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	p.until("six cards", `document.querySelectorAll('#waiting-list article.card').length === 6`, 10*time.Second)

	groupBy := func(by string) {
		evalJS[bool](p, fmt.Sprintf(`(() => { const s = document.getElementById('group-by'); s.value = %q; s.dispatchEvent(new Event('change')); return true; })()`, by))
	}
	// groups is each group's name and count, in the page's order.
	groups := func() string {
		return evalJS[string](p, `[...document.querySelectorAll('#waiting-list section.group')].map((g) =>
			g.querySelector('.group-name').textContent + ' = ' + g.querySelector('.group-count').textContent).join('; ')`)
	}
	groupSel := func(name string) string { return fmt.Sprintf(`#waiting-list section.group[aria-label=%q]`, name) }

	groupBy("project")
	want := "project /work/alpha = 3; project /work/beta = 2; no project = 1"
	if got := groups(); got != want {
		t.Errorf("grouped by project: %q, want %q", got, want)
	}
	for _, id := range alpha {
		if !evalJS[bool](p, fmt.Sprintf(`!!document.querySelector(%q + ' ' + %q)`, groupSel("project /work/alpha"), fmt.Sprintf(`article.card[data-id=%q]`, id))) {
			t.Errorf("request %s is not in the alpha group", id)
		}
	}
	groupBy("agent")
	want = "agent claude-code · session session-a = 3; agent codex · session session-b = 2; agent claude-code · session session-c = 1"
	if got := groups(); got != want {
		t.Errorf("grouped by agent: %q, want %q", got, want)
	}

	// Collapsed: beta's cards are not shown; a new beta request goes into
	// the collapsed group (counted), the new-request bar names it, and n
	// opens the group with it in view.
	groupBy("project")
	p.clickJS(groupSel("project /work/beta") + " .group-toggle")
	p.until("beta collapsed", fmt.Sprintf(`document.querySelector(%q).getClientRects().length === 0`, cardSel(beta[0])), 5*time.Second)
	late := queue("codex", "session-b", "/work/beta", "make lint-late")
	p.until("the late request counted in the collapsed group", fmt.Sprintf(`document.querySelector(%q + ' .group-count').textContent === '3' && !!document.querySelector(%q)`,
		groupSel("project /work/beta"), cardSel(late)), 10*time.Second)
	if evalJS[bool](p, fmt.Sprintf(`document.querySelector(%q).getClientRects().length > 0`, cardSel(late))) {
		t.Errorf("the late request shows in a collapsed group")
	}
	p.until("the new-request bar", `!document.getElementById('new-bar').hidden`, 5*time.Second)
	p.viewShot("inbox-groups")
	evalJS[bool](p, `(document.activeElement && document.activeElement.blur(), true)`)
	p.key("n")
	p.until("the group open, the late request in view", fmt.Sprintf(`(() => { const c = document.querySelector(%q); const r = c.getBoundingClientRect();
		return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; })()`, cardSel(late)), 5*time.Second)

	// A group's own Allow: the confirmation names the group and lists its
	// three requests, nothing of the others; its button decides those.
	p.clickJS(groupSel("project /work/alpha") + " .group-allow-one")
	p.until("the confirmation", `!document.getElementById('confirm').hidden`, 5*time.Second)
	what := evalJS[string](p, `document.getElementById('confirm-what').textContent`)
	listed := evalJS[string](p, `document.getElementById('confirm-list').innerText`)
	if !strings.Contains(what, "3 requests (project /work/alpha)") || strings.Count(listed, "make test-") != 3 || strings.Contains(listed, "lint") || strings.Contains(listed, "no project") {
		t.Fatalf("the confirmation says %q and lists:\n%s", what, listed)
	}
	confirm := func() {
		evalJS[bool](p, `(document.getElementById('confirm').scrollIntoView({block: 'center'}), true)`)
		x, y := p.center("#confirm-go")
		p.mouse(x, y)
		time.Sleep(look)
		p.click(x, y, 1)
	}
	confirm()
	for _, id := range alpha {
		if r := waitDecided(t, q, id); r.Status != approvals.Allowed {
			t.Errorf("alpha request %s: %s", id, r.Status)
		}
	}
	p.until("the alpha group gone", fmt.Sprintf(`!document.querySelector(%q + ' article.card')`, groupSel("project /work/alpha")), 10*time.Second)
	if got := decidedOf(t, q, append([]string{loose, late}, beta...)); len(got) != 0 {
		t.Errorf("decided beyond the alpha group: %v", got)
	}

	// The beta group denied whole, the late request with it.
	p.clickJS(groupSel("project /work/beta") + " .group-deny-one")
	p.until("the confirmation", `!document.getElementById('confirm').hidden && document.getElementById('confirm-go').textContent === 'Deny 3'`, 5*time.Second)
	confirm()
	for _, id := range append(beta, late) {
		if r := waitDecided(t, q, id); r.Status != approvals.Denied {
			t.Errorf("beta request %s: %s", id, r.Status)
		}
	}
	if got := decidedOf(t, q, []string{loose}); len(got) != 0 {
		t.Errorf("the request of no project was decided with beta")
	}
}

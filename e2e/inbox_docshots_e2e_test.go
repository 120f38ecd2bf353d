//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// docShotsEnv, set to 1, makes TestInboxDocScreenshots write docs/inbox*.png:
//
//	E2E_DOC_SHOTS=1 bash .ci/e2e -run TestInboxDocScreenshots
//
// Without it the test takes the same screenshots into the artifacts only.
const docShotsEnv = "E2E_DOC_SHOTS"

// docToken is the token the seeded session holds: every screenshot must
// show its stand-in, never it.
const docToken = "tok-DOC-SECRET-0123456789abcdefghij"

// TestInboxDocScreenshots seeds a state dir (two agents in two projects,
// a Bash command, an Edit, a Write, an MCP call carrying a held token),
// opens the inbox in headless Chromium and takes docs/inbox.md's
// screenshots: the page grouped by project, a Bash card, an Edit card,
// a group's confirmation.
func TestInboxDocScreenshots(t *testing.T) {
	parallel(t)
	sc := pageScenario(t)
	shop, api := "/home/me/src/shop", "/home/me/src/api"
	if err := state.New(sc.stateDir).Put(state.Record{Token: docToken, Server: "wf", Session: "doc-shop"}); err != nil {
		t.Fatal(err)
	}
	q := approvals.New(sc.stateDir)
	queue := func(client, session, cwd, tool, input string) string {
		r, err := q.Enqueue(approvals.Request{Client: client, Session: session, Tool: tool, Cwd: cwd, Project: cwd,
			Input: input, Deadline: time.Now().Add(30 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	bash := queue("claude-code", "doc-shop", shop, "Bash",
		`{"command":"go test ./...\ngit status --short","description":"Run the tests, then show what changed"}`)
	edit := queue("claude-code", "doc-shop", shop, "Edit",
		`{"file_path":"/home/me/src/shop/cart.py","old_string":"def total(items):\n    return 0","new_string":"def total(items):\n    return sum(it.price for it in items)"}`)
	queue("claude-code", "doc-shop", shop, "mcp__wf__next_step", fmt.Sprintf(`{"session_token":%q,"step":"deploy"}`, docToken))
	queue("codex", "doc-api", api, "shell", `{"command":["bash","-lc","rm -rf build \u0026\u0026 make"]}`)
	queue("codex", "doc-api", api, "apply_patch", `{"input":"*** Begin Patch\n*** Add File: /home/me/src/api/NOTES.md\n+release notes\n*** End Patch"}`)

	ib := startInbox(t, sc, "")
	p := openBrowser(t, sc)
	p.openInbox(ib)
	p.until("five cards", `document.querySelectorAll('#waiting-list article.card').length === 5`, 10*time.Second)
	text := evalJS[string](p, `document.body.innerText + [...document.querySelectorAll('pre, textarea, input')].map((e) => e.value || e.textContent).join('\n')`)
	if strings.Contains(text, docToken) {
		t.Fatalf("the page shows the held token")
	}
	if !strings.Contains(text, "held by interceptor]") {
		t.Fatalf("the page shows no stand-in: the token check above may be vacuous")
	}
	evalJS[bool](p, `(() => { const s = document.getElementById('group-by'); s.value = 'project'; s.dispatchEvent(new Event('change')); return true; })()`)
	p.until("grouped", `document.querySelectorAll('#waiting-list section.group').length === 2`, 5*time.Second)
	time.Sleep(look) // the cards settle (their buttons stop looking faded)

	write := os.Getenv(docShotsEnv) == "1"
	shot := func(name string, how chromedp.Action[[]byte]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
		defer cancel()
		png, err := chromedp.Run(ctx, how)
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		for _, dir := range []string{p.art, filepath.Join("..", "docs")} {
			if dir != p.art && !write {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot %s", filepath.Join(dir, name+".png"))
		}
	}
	evalJS[int](p, `window.scrollTo(0, 0), 0`)
	shot("inbox", chromedp.CaptureScreenshot())
	for name, id := range map[string]string{"inbox-bash-card": bash, "inbox-edit-card": edit} {
		// In view and still first: a card that just moved shows its
		// buttons faded (not yet armed).
		evalJS[bool](p, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'center'}), true)`, cardSel(id)))
		time.Sleep(look) // the page sees the move on its next frame
		p.until("the card armed", fmt.Sprintf(`document.querySelector(%q).classList.contains('armed')`, cardSel(id)), 5*time.Second)
		shot(name, chromedp.Screenshot(cardSel(id)))
	}
	p.clickJS(`#waiting-list section.group[aria-label="project /home/me/src/shop"] .group-allow-one`)
	p.until("the confirmation", `!document.getElementById('confirm').hidden`, 5*time.Second)
	time.Sleep(look)
	evalJS[int](p, `window.scrollTo(0, 0), 0`)
	shot("inbox-group-confirm", chromedp.CaptureScreenshot())
	p.clickJS("#confirm-cancel")
	if got := decidedOf(t, q, pendingIDs(t, q)); len(got) != 0 {
		t.Errorf("decided: %v", got)
	}
}

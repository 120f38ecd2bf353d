//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
)

// pageChildMarker starts the second chat's prompt: the script edits then.
const pageChildMarker = "E2E-PAGE-CHAT-2"

// pageChildScript: chat 1 writes page.txt, then ends; chat 2 (its prompt
// carries pageChildMarker) edits it, and waits for the decision that the
// test never gives (it cancels the chat).
type pageChildScript struct{ proj string }

func (s pageChildScript) Plan(c fakemodel.Conversation, tools []fakemodel.Tool) (fakemodel.Action, bool) {
	find := func(name string) (fakemodel.Tool, bool) { return fakemodel.ClientTool(tools, name) }
	write, ok := find("Write")
	if !ok {
		return fakemodel.Action{Text: fakemodel.SideText}, false
	}
	file := filepath.Join(s.proj, "page.txt")
	second := strings.Contains(string(c.Body), pageChildMarker)
	switch {
	case !second && len(c.Results) == 0:
		return fakemodel.Action{Tool: write, Args: map[string]any{"file_path": file, "content": "written from the page\n"}}, true
	case second && len(c.Results) == 1:
		edit, ok := find("Edit")
		if !ok {
			return fakemodel.Action{Text: "no Edit tool offered"}, true
		}
		return fakemodel.Action{Tool: edit, Args: map[string]any{"file_path": file, "old_string": "written from the page", "new_string": "edited by the second chat"}}, true
	}
	return fakemodel.Action{Text: fakemodel.FinalText}, true
}

// Issue 31 item 7, in headless Chromium with a real Claude Code child run
// offline against the fake model: a child started from the page (name,
// client, directory, prompt) runs; its Write waits on the page and shows
// in the chat as the file's path and content; allowed, the chat ends.
// The next chat, continued from the chat's view, edits the file: the
// chat shows the edit as a diff; cancelled from the page, the chat ends
// failed and its request no longer waits. A relative directory is refused
// with the server's one line, and nothing is made.
func TestInboxChildFromThePage(t *testing.T) {
	parallel(t)
	sc, pm, env, _ := newChildScenario(t, childClaude)
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Script: pageChildScript{proj: sc.proj}})
	pm.child = sc.model // before any request
	ib := startInboxEnv(t, sc, append(childEnv(sc), envList(env)...), "")
	p := openBrowser(t, sc)
	cs, q := testChildren(sc), approvals.New(sc.stateDir)
	defer func() {
		if t.Failed() {
			p.shot("at-failure")
			dumpChildren(t, sc, "", "")
		}
	}()
	p.openInbox(ib)
	p.until("the client list", `document.getElementById('child-client').options.length > 0`, 10*time.Second)

	start := func(name, dir, prompt string) {
		p.clickJS("#child-new summary")
		p.fill("#child-name", name)
		evalJS[bool](p, `(document.getElementById('child-client').value = 'claude-code', true)`)
		p.fill("#child-dir", dir)
		p.fill("#child-prompt", prompt)
		p.clickJS("#child-go")
	}
	start("relative", "project", "Write the page file.")
	p.until("the refusal", `document.getElementById('child-error').textContent !== ''`, 10*time.Second)
	if msg := evalJS[string](p, `document.getElementById('child-error').textContent`); !strings.Contains(msg, "want an absolute path") {
		t.Errorf("a relative directory: %q", msg)
	}
	if all, _ := cs.List(); len(all) != 0 {
		t.Fatalf("a refused start made %d children", len(all))
	}

	start("pagechild", sc.proj, "Write the page file.")
	p.until("the new chat's view", `location.hash.startsWith('#chat=') && !!document.querySelector('#chat-head .child')`, 30*time.Second)
	chat1 := strings.TrimPrefix(evalJS[string](p, `decodeURIComponent(location.hash)`), "#chat=")
	c, err := cs.Get("pagechild")
	if err != nil || c.Client != "claude-code" || c.WorkingDir != sc.proj || c.Unsupervised {
		t.Fatalf("the child the page made: %+v %v", c, err)
	}
	card, _ := p.nextCard("#chat-pending", map[string]bool{}, 2*time.Minute)
	if card.Tool != "Write" {
		t.Fatalf("chat 1 asks for %+v", card)
	}
	p.until("the Write in the chat as its path and content", `[...document.querySelectorAll('#chat-events .ev-tool_use')].some((li) =>
		li.querySelector('p.path') && li.querySelector('pre.input.write') && li.querySelector('pre.input.write').textContent.includes('written from the page'))`, 30*time.Second)
	p.press(fmt.Sprintf(`#chat-pending article.card[data-id=%q]`, card.ID), "button.allow")
	if r := waitDecided(t, q, card.ID); r.Status != approvals.Allowed {
		t.Fatalf("the Write: %s", r.Status)
	}
	p.until("chat 1 complete, the next chat offered", `document.getElementById('chat-status').textContent === 'complete' && !document.getElementById('chat-continue').hidden`, 2*time.Minute)
	if b, err := os.ReadFile(filepath.Join(sc.proj, "page.txt")); err != nil || string(b) != "written from the page\n" {
		t.Errorf("page.txt after chat 1: %q %v", b, err)
	}

	p.fill("#chat-prompt", pageChildMarker+": edit the page file.")
	p.clickJS("#chat-send")
	p.until("the next chat's view", fmt.Sprintf(`decodeURIComponent(location.hash) !== %q && !!document.querySelector('#chat-head .child')`, "#chat="+chat1), 30*time.Second)
	chat2 := strings.TrimPrefix(evalJS[string](p, `decodeURIComponent(location.hash)`), "#chat=")
	if _, n, err := children.ParseChatID(chat2); err != nil || n != 2 {
		t.Fatalf("continued as %q (%v)", chat2, err)
	}
	card2, _ := p.nextCard("#chat-pending", map[string]bool{card.ID: true}, 2*time.Minute)
	if card2.Tool != "Edit" {
		t.Fatalf("chat 2 asks for %+v", card2)
	}
	p.until("the Edit in the chat as a diff", `[...document.querySelectorAll('#chat-events .ev-tool_use pre.input.edit')].some((pre) =>
		[...pre.querySelectorAll('span.add')].some((s) => s.textContent.includes('edited by the second chat')) &&
		[...pre.querySelectorAll('span.del')].some((s) => s.textContent.includes('written from the page')))`, 30*time.Second)
	p.until("Cancel offered", `!document.getElementById('chat-cancel').hidden`, 10*time.Second)
	p.shot("chat-with-diff")
	x, y := p.center("#chat-cancel")
	p.mouse(x, y)
	p.click(x, y, 1)
	p.until("cancel asks again", `document.getElementById('chat-cancel').textContent.includes('again')`, 5*time.Second)
	time.Sleep(look)
	p.click(x, y, 1)
	p.until("chat 2 failed (cancelled)", `document.getElementById('chat-status').textContent === 'failed'`, 30*time.Second)
	// The chat's end is written before its requests are settled.
	if r := waitDecided(t, q, card2.ID); r.Status != approvals.Denied {
		t.Errorf("the cancelled chat's Edit: %s", r.Status)
	}
	p.until("the Edit's card gone", fmt.Sprintf(`!document.querySelector('#waiting-list article.card[data-id=%q]')`, card2.ID), 10*time.Second)
	if b, _ := os.ReadFile(filepath.Join(sc.proj, "page.txt")); string(b) != "written from the page\n" {
		t.Errorf("page.txt after the cancelled chat: %q", b)
	}
}

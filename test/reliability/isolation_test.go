package reliability

import (
	"fmt"
	"github.com/interceptor-dev/interceptor/internal/state"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestEveryClientRoundTrip is the baseline the other tests build on: for each
// client, a captured token is injected into the same session's next call,
// and clear forgets it.
func TestEveryClientRoundTrip(t *testing.T) {
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(privateDir(t, false), "state")
			tok := mkToken("roundtrip-" + c.name)
			for _, cl := range []string{c.name, "auto"} {
				r := run(t, c.post(t, "S1", tok), runOpts{}, hookArgs("capture", dir, "--client", cl)...)
				hookOK(t, r, 0)
				r = run(t, c.pre(t, "S1"), runOpts{}, hookArgs("inject", dir, "--client", cl)...)
				if got := injected(t, c, r); got != tok || r.stderr != "" || r.code != 0 {
					t.Errorf("--client %s: injected %.30q; want the captured token\n%s", cl, got, r)
				}
				if c.end == nil {
					continue
				}
				r = run(t, c.end(t, "S1"), runOpts{}, hookArgs("clear", dir, "--client", cl)...)
				hookOK(t, r, 0)
				r = run(t, c.pre(t, "S1"), runOpts{}, hookArgs("inject", dir, "--client", cl)...)
				hookOK(t, r, 0)
			}
		})
	}
}

// TestConcurrentSessionsNeverMix: many sessions at once, over all clients,
// each capturing and then injecting. Every inject carries exactly its own
// session's latest token; after some sessions end, they get nothing while the
// others keep theirs.
func TestConcurrentSessionsNeverMix(t *testing.T) {
	sessions, rounds := pick(32, 96), pick(5, 25)
	dir := filepath.Join(privateDir(t, false), "state")
	last := make([]string, sessions)
	var ty tally
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			c := clients[s%len(clients)]
			id := fmt.Sprintf("iso-%d", s)
			for k := range rounds {
				tok := mkToken(fmt.Sprintf("iso-s%d-k%d", s, k))
				r, err := runErr(c.post(t, id, tok), runOpts{}, hookArgs("capture", dir)...)
				if err != nil {
					t.Error(err)
					return
				}
				// A capture that loses the lock race stores nothing (see
				// TestContentionManySessions); the session then keeps its
				// previous token, never anyone else's.
				st := classify(t, r)
				ty.add(st, r.took)
				if st == stored {
					last[s] = tok
				}
				r, err = runErr(c.pre(t, id), runOpts{}, hookArgs("inject", dir)...)
				if err != nil {
					t.Error(err)
					return
				}
				got := injected(t, c, r)
				if st == watchdog && got == tok {
					last[s] = tok
				}
				if got != last[s] || (got != "" && strings.Count(r.stdout, "rt.") != 1) {
					t.Errorf("session %d (%s) round %d: injected %.24q, reply holds %d tokens; want its own %.24q only",
						s, c.name, k, got, strings.Count(r.stdout, "rt."), last[s])
				}
			}
		}()
	}
	close(gate)
	wg.Wait()
	if t.Failed() {
		return
	}
	ended := 0
	for s := range sessions {
		c := clients[s%len(clients)]
		if c.end != nil && s%2 == 0 {
			hookOK(t, run(t, c.end(t, fmt.Sprintf("iso-%d", s)), runOpts{}, hookArgs("clear", dir)...), 0)
			last[s] = ""
			ended++
		}
	}
	for s := range sessions {
		c := clients[s%len(clients)]
		r := run(t, c.pre(t, fmt.Sprintf("iso-%d", s)), runOpts{}, hookArgs("inject", dir)...)
		if got := injected(t, c, r); got != last[s] {
			t.Errorf("after %d sessions ended: session %d (%s) injected %.24q; want %.24q", ended, s, c.name, got, last[s])
		}
	}
	t.Logf("%d concurrent sessions x %d capture+inject rounds over %d clients (%d processes): 0 cross-session tokens; %d sessions ended, each then got nothing while the rest kept theirs; captures: %s",
		sessions, rounds, len(clients), 2*sessions*rounds+sessions+ended, ended, &ty)
	wantNoLockTimeouts(t, &ty)
}

// craftedIDs are session ids an attacker controls (a model-driven harness or
// a server can put anything in a payload).
var craftedIDs = []string{
	"../", "../../../../../../etc/passwd", "/etc/passwd", "/tmp/x", "..", ".", "./.",
	"tokens/../../x", `..\..\x`, "C:\\x", "current.json", ".lock", ".tmp-x",
	"a\x00b", "\x00", "\x00/../../x",
	strings.Repeat("A", 4096), strings.Repeat("../", 1365),
	"sessão-日本語-🔑", "\u202etxt.exe", "line\nbreak\r\n", "tab\tsep",
	"", // last: no session, so it writes only current, and is the last writer
}

var stateFileRE = regexp.MustCompile(`^tokens(/[^/]+(/(\.lock-([0-9a-f]{2}|current)|current\.json|s-[0-9a-f]{40}\.json))?)?$`)

// TestCraftedSessionIDsStayInside stores a token under each crafted session
// id through the binary, reads each back, and walks the state dir and its
// parent: nothing was created or touched outside tokens/wf/.
func TestCraftedSessionIDsStayInside(t *testing.T) {
	parent := privateDir(t, false)
	dir := filepath.Join(parent, "state")
	victim := filepath.Join(parent, "victim")
	os.Mkdir(victim, 0o700)
	os.WriteFile(filepath.Join(victim, "keep"), []byte("untouched"), 0o600)
	before := tree(victim)
	c := clientNamed(t, "codex")
	toks := map[string]string{}
	for i, id := range craftedIDs {
		tok := mkToken(fmt.Sprintf("crafted-%d", i))
		toks[id] = tok
		hookOK(t, run(t, c.post(t, id, tok), runOpts{}, hookArgs("capture", dir)...), 0)
	}
	for i, id := range craftedIDs {
		r := run(t, c.pre(t, id), runOpts{}, hookArgs("inject", dir)...)
		if got := injected(t, c, r); got != toks[id] {
			t.Errorf("crafted id %d (%.30q): injected %.24q; want its own token", i, id, got)
		}
	}
	checkConfined(t, parent, dir, victim, before)
	if n := countFiles(dir, "s-"); n != len(craftedIDs)-1 {
		t.Errorf("%d session files for %d distinct non-empty ids", n, len(craftedIDs)-1)
	}
	t.Logf("%d crafted session ids (../, absolute, NUL, 4 KiB, unicode, …): each read back its own token; nothing outside %s/tokens/%s", len(craftedIDs), filepath.Base(dir), server)
}

// TestCraftedServerNamesStayInside does the same for --server names, which
// come from the user's config, through Claude Code's mcp_server.name.
func TestCraftedServerNamesStayInside(t *testing.T) {
	parent := privateDir(t, false)
	dir := filepath.Join(parent, "state")
	victim := filepath.Join(parent, "victim")
	os.Mkdir(victim, 0o700)
	os.WriteFile(filepath.Join(victim, "keep"), []byte("untouched"), 0o600)
	before := tree(victim)
	names := []string{"../evil", "../../../../tmp/evil", "/abs/evil", "a/b", "..", ".", ".lock",
		"current.json", "tokens", strings.Repeat("n", 4096), "naïve-服务器", `..\evil`}
	for i, name := range names {
		tok := mkToken(fmt.Sprintf("server-%d", i))
		tool := "mcp__" + sanitize(name) + "__next_step"
		post := set(t, set(t, clientNamed(t, "claude-code").post(t, "S", tok), "mcp_server.name", name), "tool_name", tool)
		hookOK(t, run(t, post, runOpts{}, "capture", "--state-dir", dir, "--server", name), 0)
		pre := set(t, set(t, clientNamed(t, "claude-code").pre(t, "S"), "mcp_server.name", name), "tool_name", tool)
		r := run(t, pre, runOpts{}, "inject", "--state-dir", dir, "--server", name)
		if got := injected(t, clientNamed(t, "claude-code"), r); got != tok {
			t.Errorf("server %.30q: injected %.24q; want its token\n%s", name, got, r)
		}
	}
	checkConfined(t, parent, dir, victim, before)
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	return string(b)
}

// checkConfined walks parent: only the state dir's expected files and the
// untouched victim dir may be there.
func checkConfined(t *testing.T, parent, dir, victim string, victimBefore map[string]string) {
	t.Helper()
	for _, d := range diffTrees(victimBefore, tree(victim)) {
		t.Errorf("outside the state dir: %s", d)
	}
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if p := filepath.Join(parent, e.Name()); p != dir && p != victim {
			t.Errorf("created outside the state dir: %s", p)
		}
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		if rel != "." && !stateFileRE.MatchString(filepath.ToSlash(rel)) {
			t.Errorf("unexpected path in the state dir: %q", rel)
		}
		return nil
	})
}

func countFiles(dir, prefix string) int {
	n := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), prefix) {
			n++
		}
		return nil
	})
	return n
}

// TestInvalidUTF8SessionClear: a session id that is not valid UTF-8 (JSON
// allows the bytes through; the hook takes them as they are) must still
// retire the current token it wrote when the session ends.
func TestInvalidUTF8SessionClear(t *testing.T) {
	dir := filepath.Join(privateDir(t, false), "state")
	c := clientNamed(t, "claude-code")
	tok := mkToken("utf8")
	raw := func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "@@SID@@", "sess-\xff\xfe")) }
	hookOK(t, run(t, raw(c.post(t, "@@SID@@", tok)), runOpts{}, hookArgs("capture", dir)...), 0)
	if got := injected(t, c, run(t, raw(c.pre(t, "@@SID@@")), runOpts{}, hookArgs("inject", dir)...)); got != tok {
		t.Fatalf("the session's own token was not injected: %.24q", got)
	}
	hookOK(t, run(t, raw(c.end(t, "@@SID@@")), runOpts{}, hookArgs("clear", dir)...), 0)
	if got := injected(t, c, run(t, raw(c.pre(t, "@@SID@@")), runOpts{}, hookArgs("inject", dir)...)); got != "" {
		t.Errorf("after clear the session still got its token injected")
	}
	// The ended session wrote the current token, so it goes too, even though
	// the record keeps the id with its invalid bytes replaced.
	if _, err := state.New(dir).Get(server, ""); err == nil {
		t.Errorf("current still holds the ended session's token")
	}
}

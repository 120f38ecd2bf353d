package reliability

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenNeverLeaks drives every path that prints or logs something while
// a long, distinctive token is held or passing through, and scans all of it:
// the token may appear only in an inject reply and in `token show --reveal`.
// capture --redact must remove it from the reply the model reads.
func TestTokenNeverLeaks(t *testing.T) {
	dir := filepath.Join(privateDir(t, false), "state")
	logf := filepath.Join(t.TempDir(), "debug.log")
	var scanned int
	scan := func(what, text string, toks ...string) {
		t.Helper()
		scanned++
		noLeak(t, text, what, toks...)
	}
	for _, c := range clients {
		tok := mkToken("leak-" + c.name)
		other := mkToken("leak-other-" + c.name)
		// capture, plain and --redact.
		for _, extra := range [][]string{nil, {"--redact"}} {
			args := hookArgs("capture", dir, append([]string{"--debug-log", logf}, extra...)...)
			r := run(t, c.post(t, "leak-S", tok), runOpts{}, args...)
			scan(c.name+" capture "+strings.Join(extra, " ")+" stderr", r.stderr, tok)
			scan(c.name+" capture "+strings.Join(extra, " ")+" stdout", r.stdout, tok)
			switch {
			case extra == nil && r.stdout != "":
				t.Errorf("%s: capture without --redact printed\n%s", c.name, r)
			case extra != nil && (c.name == "codex" || c.name == "gemini"):
				hookOK(t, r, 1, "cannot rewrite")
			case extra != nil && r.stdout == "":
				t.Errorf("%s: capture --redact gave no reply; this client can rewrite results\n%s", c.name, r)
			}
		}
		// inject: the reply carries it; nothing else does.
		r := run(t, c.pre(t, "leak-S"), runOpts{}, hookArgs("inject", dir, "--debug-log", logf)...)
		if injected(t, c, r) != tok {
			t.Errorf("%s: inject did not carry the token\n%s", c.name, r)
		}
		scan(c.name+" inject stderr", r.stderr, tok)
		// inject into another server's tool: nothing.
		r = run(t, c.pre(t, "leak-S"), runOpts{}, "inject", "--state-dir", dir, "--server", "wf2", "--debug-log", logf)
		hookOK(t, r, 0)
		scan(c.name+" inject other server", r.stdout+r.stderr, tok)
		// A token refused on capture: the warning names why, not the token.
		r = run(t, c.post(t, "leak-S", other+"\x01"), runOpts{}, hookArgs("capture", dir, "--debug-log", logf)...)
		scan(c.name+" refused token warning", r.stderr, other)
		// clear, then inject finds nothing.
		if c.end != nil {
			r = run(t, c.end(t, "leak-S"), runOpts{}, hookArgs("clear", dir, "--debug-log", logf)...)
			hookOK(t, r, 0)
		}
	}
	// Human commands.
	tok := mkToken("leak-manual")
	r := run(t, []byte(tok+"\n"), runOpts{}, "token", "set", "--state-dir", dir, "--server", server, "--session", "M")
	scan("token set stderr", r.stderr+r.stdout, tok)
	if r.code != 0 || !strings.Contains(r.stderr, "stored rt.") {
		t.Errorf("token set\n%s", r)
	}
	for _, args := range [][]string{
		{"token", "show", "--state-dir", dir},
		{"token", "show", "--state-dir", dir, "--all"},
		{"token", "show", "--state-dir", dir, "--server", server, "--session", "M"},
		{"token", "show", "--state-dir", dir, "--server", server, "--session", "nope"},
		{"token", "clear", "--state-dir", dir, "--server", server, "--session", "nope"},
	} {
		r := run(t, nil, runOpts{}, args...)
		scan(strings.Join(args[:2], " ")+" output", r.stdout+r.stderr, tok)
	}
	r = run(t, nil, runOpts{}, "token", "show", "--state-dir", dir, "--server", server, "--session", "M", "--reveal")
	if !strings.Contains(r.stdout, tok) {
		t.Errorf("token show --reveal does not show the token\n%s", r)
	}
	// A bad token on the command line: refused without echoing it.
	bad := tok + "\n" + "tail"
	r = run(t, nil, runOpts{}, "token", "set", "--state-dir", dir, "--server", server, bad)
	scan("token set refusal", r.stdout+r.stderr, tok)
	if r.code != 1 || lines(r.stderr) != 1 {
		t.Errorf("token set with a bad token\n%s", r)
	}
	logb, err := os.ReadFile(logf)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clients {
		scan("debug log", string(logb), mkToken("leak-"+c.name), mkToken("leak-other-"+c.name))
	}
	if !strings.Contains(string(logb), "the first rt.") || !strings.Contains(string(logb), "injected session_token rt.") {
		t.Errorf("the debug log does not trace captures and injections (masked)")
	}
	t.Logf("%d outputs scanned (stderr, stdout of capture --redact and token commands, %d-line debug log): the token appears only in inject replies and token show --reveal",
		scanned, strings.Count(string(logb), "\n"))
}

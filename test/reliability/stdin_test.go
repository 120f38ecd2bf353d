package reliability

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/tidwall/gjson"
)

// What a hostile input must do.
type class int

const (
	anyEvent     class = iota // may be a usable event: only the invariants hold
	notEvent                  // not an event at all: one stderr line, no stdout, nothing written
	tokenRefused              // a post event whose token is unacceptable: capture warns, stores nothing
	validPre                  // a well-formed pre-tool event of client: inject must reply with the seeded token
	validPost                 // a well-formed post-tool event of client: capture must store its token
)

type input struct {
	name    string
	data    []byte
	class   class
	client  string // the client whose payload this derives from ("" for generic)
	secrets []string
}

var (
	seedTok    = mkToken("stdin-seed")    // held for every session before each run
	fixtureTok = mkToken("stdin-fixture") // put where the fixtures carry "tok-1"
)

var fixtureNames = []string{
	"claude-code.PreToolUse.structured", "claude-code.PreToolUse.text",
	"claude-code.PostToolUse.structured", "claude-code.PostToolUse.text",
	"codex.PreToolUse.structured", "codex.PreToolUse.text",
	"codex.PostToolUse.structured", "codex.PostToolUse.text",
	"gemini.BeforeTool.text", "gemini.AfterTool.text",
	"opencode.tool.execute.before.text", "opencode.tool.execute.after.text",
}

func fixtureClient(name string) string { return strings.SplitN(name, ".", 2)[0] }

// fixtureSessions are the session ids in the fixtures (seeded with seedTok).
func fixtureSessions(t testing.TB) []string {
	seen := map[string]bool{"hostile-S": true}
	for _, n := range fixtureNames {
		p := gjson.ParseBytes(fixture(t, n))
		for _, path := range []string{"session_id", "input.sessionID", "conversation_id"} {
			if v := p.Get(path); v.Type == gjson.String {
				seen[v.Str] = true
			}
		}
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// leafPaths lists every value path of a JSON document, objects and arrays
// included, in sjson/gjson syntax.
func leafPaths(v gjson.Result, prefix string, out *[]string) {
	v.ForEach(func(k, e gjson.Result) bool {
		key := k.String()
		if !k.Exists() {
			return true
		}
		key = strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`).Replace(key)
		p := key
		if prefix != "" {
			p = prefix + "." + key
		}
		*out = append(*out, p)
		if e.IsObject() || e.IsArray() {
			leafPaths(e, p, out)
		}
		return true
	})
}

var wrongValues = []string{`null`, `0`, `-1.5e308`, `true`, `"str"`, `""`, `[]`, `{}`, `[1,"x",null]`, `{"k":{"k":"v"}}`}

func hostileCorpus(t testing.TB) []input {
	var in []input
	add := func(name string, data []byte, c class, client string, secrets ...string) {
		in = append(in, input{name: name, data: data, class: c, client: client, secrets: secrets})
	}
	for _, s := range []string{"", " ", "\n\t\r\n", "null", "[]", `"x"`, "1", "true", "[{}]", "{}{}", "{", "}", `{"a":}`,
		"\x00", "\x00{}", "{}\x00", "\xef\xbb\xbf{}", "\xff\xfe{\x00}", `{"session_id":"x\u0000`, "{\"a\":\"\x01\"}"} {
		add(fmt.Sprintf("generic %q", s), []byte(s), notEvent, "")
	}
	add("empty object", []byte("{}"), anyEvent, "")
	add("deep array 10000", []byte(strings.Repeat("[", 10000)+strings.Repeat("]", 10000)), notEvent, "")
	add("deep object 10000", []byte(strings.Repeat(`{"a":`, 10000)+"1"+strings.Repeat("}", 10000)), notEvent, "")
	add("deep unbalanced 10000", []byte(strings.Repeat(`{"a":[`, 10000)), notEvent, "")

	step := pick(53, 7)
	types := pick(1, len(wrongValues))
	for fi, name := range fixtureNames {
		cl := fixtureClient(name)
		f := bytes.ReplaceAll(fixture(t, name), []byte(`"tok-1"`), []byte(`"`+fixtureTok+`"`))
		f = bytes.ReplaceAll(f, []byte(`token=tok-1`), []byte(`token=`+fixtureTok))
		f = bytes.ReplaceAll(f, []byte(`\"tok-1\"`), []byte(`\"`+fixtureTok+`\"`))
		pre := strings.Contains(name, "Pre") || strings.Contains(name, "Before") || strings.Contains(name, "before")
		switch {
		case pre:
			add(name+" pristine", f, validPre, cl)
		case bytes.Contains(f, []byte(fixtureTok)) && !strings.Contains(name, "claude-code.PostToolUse.text"):
			add(name+" pristine", f, validPost, cl, fixtureTok)
		default:
			add(name+" pristine", f, anyEvent, cl, fixtureTok)
		}
		trimmed := bytes.TrimRight(f, " \n\r\t")
		for cut := fi % step; cut < len(trimmed); cut += step {
			add(fmt.Sprintf("%s truncated at %d", name, cut), trimmed[:cut], notEvent, cl, fixtureTok)
		}
		for i := 0; i < 3; i++ {
			at := len(f) * (i + 1) / 4
			nul := append(append(append([]byte{}, f[:at]...), 0), f[at:]...)
			add(fmt.Sprintf("%s raw NUL at %d", name, at), nul, notEvent, cl, fixtureTok)
		}
		var paths []string
		leafPaths(gjson.ParseBytes(f), "", &paths)
		for pi, p := range paths {
			for k := 0; k < types; k++ {
				v := wrongValues[(pi+fi+k)%len(wrongValues)]
				if gjson.GetBytes(f, p).Raw == v {
					continue
				}
				add(fmt.Sprintf("%s %s=%s", name, p, v), setRaw(t, f, p, v), anyEvent, cl, fixtureTok)
			}
			if v := gjson.GetBytes(f, p); v.Type == gjson.String && (long || pi%3 == 0) {
				b := set(t, f, p, "@@BAD@@")
				add(name+" invalid UTF-8 in "+p, bytes.Replace(b, []byte("@@BAD@@"), []byte("x\xff\xfe\xc3("), 1), anyEvent, cl, fixtureTok)
				add(name+" NUL escape in "+p, set(t, f, p, "a\x00b"), anyEvent, cl, fixtureTok)
			}
		}
		// Duplicate keys: each top-level key again, first with a wrong value
		// (gjson reads the first), then at the end (JavaScript reads the last).
		gjson.ParseBytes(f).ForEach(func(k, _ gjson.Result) bool {
			kq := k.Raw
			first := append([]byte("{"+kq+`:"dup-first",`), bytes.TrimLeft(f, " \n{")...)
			add(name+" duplicate first "+k.Str, first, anyEvent, cl, fixtureTok)
			last := append(append([]byte{}, trimmed[:len(trimmed)-1]...), []byte(","+kq+`:{"dup":"last"}}`)...)
			add(name+" duplicate last "+k.Str, last, anyEvent, cl, fixtureTok)
			return true
		})
	}

	// Size limits.
	codexPre := fixture(t, "codex.PreToolUse.structured")
	pad := func(n int) []byte { return set(t, codexPre, "zz_pad", strings.Repeat("p", n)) }
	over := pad(8<<20 + 1)
	add("over 8 MiB", over, notEvent, "codex")
	under := pad(8<<20 - len(codexPre) - 64)
	add("just under 8 MiB", under, validPre, "codex")
	add("10000-deep tool_input", setRaw(t, codexPre, "tool_input", strings.Repeat(`{"a":`, 10000)+"1"+strings.Repeat("}", 10000)), notEvent, "codex")
	add("500-deep tool_input", setRaw(t, codexPre, "tool_input", strings.Repeat(`{"a":`, 500)+"1"+strings.Repeat("}", 500)), validPre, "codex")
	add("10000 brackets in a string", set(t, codexPre, "tool_input.step", strings.Repeat("[{", 10000)), validPre, "codex")

	// Tokens that must never be stored, where a hook sees them as JSON.
	bad := map[string]string{
		"newline": "abc\ndef", "CR": "abc\rdef", "tab": "abc\tdef", "space": "abc def",
		"NUL": "abc\x00def", "control": "abc\x01def", "DEL": "abc\x7fdef", "unicode": "abcédef",
		"ESC": "abc\x1b[31mdef", "16 KiB + 1": strings.Repeat("A", 16<<10+1),
		"1 MiB": strings.Repeat("B", 1<<20),
	}
	for _, cn := range []string{"codex", "claude-code", "opencode", "cursor"} {
		c := clientNamed(t, cn)
		for what, v := range bad {
			tok := v
			if len(v) < 100 {
				tok = mkToken("bad-"+what) + v // long and distinctive, with the bad byte inside
			}
			add(fmt.Sprintf("%s token with %s", cn, what), c.post(t, "hostile-S", tok), tokenRefused, cn, tok)
		}
		// An empty token is no token: nothing stored, nothing said.
		add(cn+" empty token", c.post(t, "hostile-S", ""), anyEvent, cn)
		edge := strings.Repeat("C7", 8<<10) // a token needs letters and digits
		add(cn+" token of exactly 16 KiB", c.post(t, "hostile-S", edge), validPost, cn, edge)
	}
	// In text, a JSON body's field longer than 16 KiB is refused with a
	// warning (a text line that does not look like a token is a mention,
	// ignored without one).
	g := clientNamed(t, "gemini")
	long := strings.Repeat("D7", 8<<10) + "D"
	add("gemini text token 16 KiB + 1", set(t, g.post(t, "hostile-S", "x"), "tool_response.llmContent.0.text",
		`<untrusted_context>{"session_token":"`+long+`"}</untrusted_context>`), tokenRefused, "gemini", long)
	return in
}

// TestHostileStdin runs every input through inject, capture and clear, with
// --client auto and the client the input derives from (long: and one other
// client in turn).
// Invariants for every run: exit 0 within 2 s, no panic, at most one stderr
// line, no token in stderr or the debug log, inject replies only with the
// seeded token (one line of JSON), capture and clear print nothing, and the
// state dir changes only as the command may change it.
func TestHostileStdin(t *testing.T) {
	corpus := hostileCorpus(t)
	sessions := fixtureSessions(t)
	cmds := []string{"inject", "capture", "clear"}

	type job struct {
		in     input
		cmd    string
		client string
	}
	var jobs []job
	for _, in := range corpus {
		cls := []string{"auto"}
		switch {
		case in.client != "":
			cls = append(cls, in.client)
		default:
			cls = append(cls, "claude-code")
		}
		if long {
			// and one other client, in turn: a payload of one client read
			// as another's (a misconfigured --client)
			others := []string{"claude-code", "codex", "gemini", "opencode", "cursor"}
			cls = append(cls, others[len(jobs)%len(others)])
		}
		for _, cmd := range cmds {
			if in.class == tokenRefused && cmd != "capture" {
				continue
			}
			for _, cl := range cls {
				jobs = append(jobs, job{in, cmd, cl})
			}
		}
	}

	workers := 4
	var next atomic.Int64
	var slowest atomic.Int64
	var replies, warned, refusedRuns, stored, retried atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	failures := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := privateDir(t, true)
			dir := filepath.Join(base, "state")
			logf := filepath.Join(base, "debug.log")
			reseed := func() map[string]string {
				os.RemoveAll(dir)
				st := state.New(dir)
				for _, s := range sessions {
					if err := st.Put(state.Record{Token: seedTok, Server: server, Session: s, Client: "seed"}); err != nil {
						t.Error(err)
					}
				}
				return tree(dir)
			}
			golden := reseed()
			runs := 0
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					break
				}
				j := jobs[i]
				args := hookArgs(j.cmd, dir, "--client", j.client, "--debug-log", logf)
				r, err := runErr(j.in.data, runOpts{timeout: 10 * time.Second}, args...)
				runs++
				if err == nil && r.took > 2*time.Second {
					// Over the bound: run it again, once. A slow path shows
					// again; a machine that was busy elsewhere does not.
					retried.Add(1)
					if len(diffTrees(golden, tree(dir))) > 0 {
						golden = reseed()
					}
					r, err = runErr(j.in.data, runOpts{timeout: 10 * time.Second}, args...)
					runs++
				}
				if err != nil {
					t.Errorf("%s | %s --client %s: %v", j.in.name, j.cmd, j.client, err)
					continue
				}
				for {
					m := slowest.Load()
					if int64(r.took) <= m || slowest.CompareAndSwap(m, int64(r.took)) {
						break
					}
				}
				after := tree(dir)
				changes := diffTrees(golden, after)
				errs := checkStdinRun(j.in, j.cmd, j.client, r, golden, after, changes)
				if len(changes) > 0 {
					golden = reseed()
				}
				if r.stdout != "" {
					replies.Add(1)
				}
				if r.stderr != "" {
					warned.Add(1)
				}
				if j.in.class == notEvent {
					refusedRuns.Add(1)
				}
				if j.cmd == "capture" && len(changes) > 0 {
					stored.Add(1)
				}
				if len(errs) > 0 {
					mu.Lock()
					failures++
					if failures <= 25 {
						t.Errorf("%s | %s --client %s:\n  %s\n%s", j.in.name, j.cmd, j.client, strings.Join(errs, "\n  "), r)
					}
					mu.Unlock()
				}
			}
			// The debug log: one line per run, never a token.
			logb, _ := os.ReadFile(logf)
			if n := strings.Count(string(logb), "\n"); n != runs {
				t.Errorf("worker %d: debug log has %d lines for %d runs", w, n, runs)
			}
			noLeak(t, string(logb), "debug log", seedTok, fixtureTok)
			for _, in := range corpus {
				for _, s := range in.secrets {
					if len(s) >= 16 && strings.Contains(string(logb), s) {
						t.Errorf("debug log holds the token of %s", in.name)
					}
				}
			}
		}()
	}
	wg.Wait()
	if failures > 25 {
		t.Errorf("%d failing runs in all (first 25 shown)", failures)
	}
	counts := map[class]int{}
	for _, in := range corpus {
		counts[in.class]++
	}
	t.Logf("%d hostile inputs (%d not events, %d bad tokens, %d valid pre, %d valid post, %d other mutations) x inject/capture/clear x clients = %d runs; slowest %v (%d runs over 2 s on a busy machine, each under 2 s when run again); %d replies, %d runs with one stderr line (%d on non-events), %d captures stored a token; 0 panics, 0 leaks",
		len(corpus), counts[notEvent], counts[tokenRefused], counts[validPre], counts[validPost], counts[anyEvent], len(jobs),
		time.Duration(slowest.Load()).Round(time.Millisecond), retried.Load(), replies.Load(), warned.Load(), refusedRuns.Load(), stored.Load())
}

// checkStdinRun returns what is wrong with one run, if anything.
func checkStdinRun(in input, cmd, cl string, r result, before, after map[string]string, changes []string) []string {
	var errs []string
	bad := func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }
	if r.code != 0 {
		bad("exit %d", r.code)
	}
	if r.took > 2*time.Second {
		bad("took %v (over 2 s)", r.took)
	}
	if n := lines(r.stderr); n > 1 {
		bad("%d stderr lines", n)
	}
	for _, p := range []string{"panic", "goroutine ", "internal error", "runtime error"} {
		if strings.Contains(r.stderr, p) {
			bad("stderr shows a crash")
		}
	}
	for _, s := range append([]string{seedTok}, in.secrets...) {
		if len(s) >= 16 && strings.Contains(r.stderr, s) {
			bad("stderr holds a token")
		}
	}
	own := cl == "auto" || cl == in.client
	switch {
	case in.class == notEvent || (in.class == tokenRefused && cmd == "capture"):
		if r.stdout != "" {
			bad("stdout on a refused input")
		}
		// A bad token read as another client's payload may not even be
		// found (the tool does not match): then nothing at all happens.
		if n := lines(r.stderr); n != 1 && (in.class == notEvent || own) {
			bad("want exactly one stderr line on a refused input")
		}
		if in.class == tokenRefused && own && !strings.Contains(r.stderr, "cannot be taken") && !strings.Contains(r.stderr, "does not look like a token") {
			bad("want the token refused")
		}
		if len(changes) > 0 {
			bad("state changed on a refused input: %v", changes)
		}
		return errs
	}
	// Stdout.
	switch {
	case r.stdout == "":
		if in.class == validPre && cmd == "inject" && own {
			bad("no reply to a valid pre-tool event with a token held")
		}
	case cmd != "inject":
		bad("%s printed on stdout", cmd)
	case !strings.HasSuffix(r.stdout, "\n") || strings.Count(r.stdout, "\n") != 1 || !gjson.Valid(r.stdout):
		bad("reply is not one line of JSON")
	case !strings.Contains(r.stdout, seedTok):
		bad("reply without the held token")
	case in.class == validPre && own:
		c := clientNamed(nil, in.client)
		if gjson.Get(r.stdout, c.argPath).Str != seedTok {
			bad("reply does not carry the token at %s", c.argPath)
		}
	}
	// State.
	for _, ch := range changes {
		path := strings.SplitN(ch, " ", 2)[1]
		switch {
		case cmd == "inject":
			bad("inject changed the state: %s", ch)
		case cmd == "clear" && !strings.HasPrefix(ch, "removed "):
			bad("clear did more than remove: %s", ch)
		case cmd == "capture":
			if strings.HasPrefix(ch, "removed ") {
				bad("capture removed %s", path)
				continue
			}
			rec := gjson.Get(after[path], "token").Str
			if !strings.Contains(string(in.data), rec) && !strings.Contains(string(in.data), strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%q", rec), `"`), `"`)) {
				bad("capture stored a token that is not in the input: %s", path)
			}
		}
	}
	if in.class == validPost && cmd == "capture" && own && len(changes) == 0 {
		bad("a valid post-tool event carrying a token stored nothing")
	}
	return errs
}

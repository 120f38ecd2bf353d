package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// newStore returns a store rooted at a state dir that does not exist yet, in
// a private temp dir (on tmpfs when there is one, see fastDir), the way a
// first hook run finds it.
func newStore(t *testing.T) *Store {
	t.Helper()
	d, _ := fastDir(t)
	return New(filepath.Join(d, "state"))
}

func mustPut(t *testing.T, s *Store, rec Record) {
	t.Helper()
	if err := s.Put(rec); err != nil {
		t.Fatalf("Put(%s/%q): %v", rec.Server, rec.Session, err)
	}
}

func mustGet(t *testing.T, s *Store, server, session string) Record {
	t.Helper()
	rec, err := s.Get(server, session)
	if err != nil {
		t.Fatalf("Get(%q, %q): %v", server, session, err)
	}
	return rec
}

func wantNotFound(t *testing.T, s *Store, server, session string) {
	t.Helper()
	rec, err := s.Get(server, session)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(%q, %q) = %+v, %v; want ErrNotFound", server, session, rec, err)
	}
}

// tok makes a long, distinctive token, so a torn or mixed-up one shows.
func tok(name string) string {
	return "TKN." + name + "." + strings.Repeat("x9Z", 100) + "." + name + ".END"
}

func TestPutGetRoundTrip(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state")) // a real disk, fsyncs and all
	when := time.Date(2026, 11, 21, 19, 46, 34, 123456789, time.FixedZone("X", 3600))
	in := Record{Token: tok("a"), Server: "wf", Session: "sess-a", Client: "codex", Updated: when}
	mustPut(t, s, in)

	for _, session := range []string{"sess-a", ""} {
		got := mustGet(t, s, "wf", session)
		if got.Token != in.Token || got.Server != in.Server || got.Session != in.Session || got.Client != in.Client {
			t.Errorf("Get(wf, %q) = %+v; want %+v", session, got, in)
		}
		if !got.Updated.Equal(when) {
			t.Errorf("Get(wf, %q).Updated = %v; want %v", session, got.Updated, when)
		}
		if got.Current {
			t.Errorf("Get(wf, %q).Current = true; only List sets it", session)
		}
	}
}

func TestPutStampsUpdated(t *testing.T) {
	s := newStore(t)
	before := time.Now().Add(-time.Second)
	mustPut(t, s, Record{Token: tok("a"), Server: "wf"})
	got := mustGet(t, s, "wf", "")
	if got.Updated.Before(before) || got.Updated.After(time.Now().Add(time.Second)) {
		t.Errorf("Updated = %v; want about now", got.Updated)
	}
}

func TestGetNothingHeld(t *testing.T) {
	s := newStore(t)
	wantNotFound(t, s, "wf", "")
	wantNotFound(t, s, "wf", "sess")
	if _, err := os.Stat(s.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get created the state dir (stat: %v); a read must not create anything", err)
	}
	mustPut(t, s, Record{Token: tok("a"), Server: "wf", Session: "sess"})
	wantNotFound(t, s, "other", "")
	wantNotFound(t, s, "other", "sess")
}

func TestSessionIsolation(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, Record{Token: tok("A"), Server: "wf", Session: "A"})
	mustPut(t, s, Record{Token: tok("B"), Server: "wf", Session: "B"})
	mustPut(t, s, Record{Token: tok("other-A"), Server: "other", Session: "A"})

	for _, c := range []struct{ server, session, want string }{
		{"wf", "A", tok("A")},
		{"wf", "B", tok("B")},
		{"wf", "", tok("B")}, // current: the latest write
		{"other", "A", tok("other-A")},
		{"other", "", tok("other-A")},
	} {
		if got := mustGet(t, s, c.server, c.session); got.Token != c.want {
			t.Errorf("Get(%q, %q) = %.20q…; want %.20q…", c.server, c.session, got.Token, c.want)
		}
	}
	// A session that never stored a token gets nothing, not the current
	// token of another session.
	wantNotFound(t, s, "wf", "C")
	wantNotFound(t, s, "other", "B")
	// Session ids that differ only slightly are different sessions.
	wantNotFound(t, s, "wf", "a")
	wantNotFound(t, s, "wf", "A ")
}

func TestCurrentSemantics(t *testing.T) {
	s := newStore(t)
	dir := s.serverDir("wf")

	// No session: only the current file is written.
	mustPut(t, s, Record{Token: tok("nosess"), Server: "wf"})
	if names := dirNames(t, dir); !slices.Equal(names, []string{currentFile}) {
		t.Fatalf("after Put without session: token files %v; want only %s", names, currentFile)
	}
	if got := mustGet(t, s, "wf", ""); got.Token != tok("nosess") || got.Session != "" {
		t.Errorf("current = %+v", got)
	}

	// With a session: the session file and current, holding the same record.
	mustPut(t, s, Record{Token: tok("A"), Server: "wf", Session: "A"})
	if names := dirNames(t, dir); !slices.Equal(names, []string{currentFile, SessionFile("A")}) {
		t.Fatalf("after Put with session: token files %v", names)
	}
	cur, sess := mustGet(t, s, "wf", ""), mustGet(t, s, "wf", "A")
	if cur.Token != tok("A") || cur.Session != "A" || sess.Token != tok("A") {
		t.Errorf("current = %+v, session = %+v; want both A's token, current naming session A", cur, sess)
	}
	a, _ := os.ReadFile(filepath.Join(dir, currentFile))
	b, _ := os.ReadFile(filepath.Join(dir, SessionFile("A")))
	if string(a) != string(b) {
		t.Errorf("current and session file differ:\n%s\n%s", a, b)
	}

	// Another session moves current, and leaves A's own token alone.
	mustPut(t, s, Record{Token: tok("B"), Server: "wf", Session: "B"})
	if got := mustGet(t, s, "wf", ""); got.Token != tok("B") || got.Session != "B" {
		t.Errorf("current after B = %+v", got)
	}
	if got := mustGet(t, s, "wf", "A"); got.Token != tok("A") {
		t.Errorf("A after B = %.20q", got.Token)
	}
}

// dirNames lists the token files in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if isTokenFile(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestDelete(t *testing.T) {
	seed := func(t *testing.T) *Store {
		s := newStore(t)
		mustPut(t, s, Record{Token: tok("A"), Server: "wf", Session: "A"})
		mustPut(t, s, Record{Token: tok("B"), Server: "wf", Session: "B"}) // current = B
		return s
	}
	t.Run("session that did not write current", func(t *testing.T) {
		s := seed(t)
		if err := s.Delete("wf", "A"); err != nil {
			t.Fatal(err)
		}
		wantNotFound(t, s, "wf", "A")
		if got := mustGet(t, s, "wf", ""); got.Token != tok("B") {
			t.Errorf("current = %.20q; deleting A must keep B's current token", got.Token)
		}
		if got := mustGet(t, s, "wf", "B"); got.Token != tok("B") {
			t.Errorf("B = %.20q", got.Token)
		}
	})
	t.Run("session that wrote current", func(t *testing.T) {
		s := seed(t)
		if err := s.Delete("wf", "B"); err != nil {
			t.Fatal(err)
		}
		wantNotFound(t, s, "wf", "B")
		wantNotFound(t, s, "wf", "")
		if got := mustGet(t, s, "wf", "A"); got.Token != tok("A") {
			t.Errorf("A = %.20q", got.Token)
		}
	})
	t.Run("empty session removes current only", func(t *testing.T) {
		s := seed(t)
		if err := s.Delete("wf", ""); err != nil {
			t.Fatal(err)
		}
		wantNotFound(t, s, "wf", "")
		for _, id := range []string{"A", "B"} {
			if got := mustGet(t, s, "wf", id); got.Token != tok(id) {
				t.Errorf("%s = %.20q", id, got.Token)
			}
		}
	})
	t.Run("nothing there is not an error", func(t *testing.T) {
		s := newStore(t)
		for _, id := range []string{"", "A"} {
			if err := s.Delete("wf", id); err != nil {
				t.Errorf("Delete on an empty store (session %q): %v", id, err)
			}
		}
		s = seed(t)
		if err := s.Delete("wf", "never"); err != nil {
			t.Errorf("Delete of an unknown session: %v", err)
		}
		if got := mustGet(t, s, "wf", ""); got.Token != tok("B") {
			t.Errorf("current = %.20q after deleting an unknown session", got.Token)
		}
		if err := s.Delete("nosuchserver", "A"); err != nil {
			t.Errorf("Delete on an unknown server: %v", err)
		}
	})
	t.Run("other servers untouched", func(t *testing.T) {
		s := seed(t)
		mustPut(t, s, Record{Token: tok("other-B"), Server: "other", Session: "B"})
		if err := s.Delete("wf", "B"); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, s, "other", "B"); got.Token != tok("other-B") {
			t.Errorf("other/B = %.20q", got.Token)
		}
		if got := mustGet(t, s, "other", ""); got.Token != tok("other-B") {
			t.Errorf("other/current = %.20q", got.Token)
		}
	})
}

func TestDeleteSession(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, Record{Token: tok("wf-A"), Server: "wf", Session: "A"})
	mustPut(t, s, Record{Token: tok("wf-B"), Server: "wf", Session: "B"}) // wf current = B
	mustPut(t, s, Record{Token: tok("x-B"), Server: "x", Session: "B"})
	mustPut(t, s, Record{Token: tok("x-A"), Server: "x", Session: "A"}) // x current = A
	mustPut(t, s, Record{Token: tok("y-A"), Server: "y/unsafe name", Session: "A"})

	if err := s.DeleteSession("A"); err != nil {
		t.Fatal(err)
	}
	for _, server := range []string{"wf", "x", "y/unsafe name"} {
		wantNotFound(t, s, server, "A")
	}
	wantNotFound(t, s, "x", "")             // A wrote x's current
	wantNotFound(t, s, "y/unsafe name", "") // and y's
	if got := mustGet(t, s, "wf", ""); got.Token != tok("wf-B") {
		t.Errorf("wf current = %.20q; B wrote it and must keep it", got.Token)
	}
	for server, want := range map[string]string{"wf": tok("wf-B"), "x": tok("x-B")} {
		if got := mustGet(t, s, server, "B"); got.Token != want {
			t.Errorf("%s/B = %.20q", server, got.Token)
		}
	}
	if err := newStore(t).DeleteSession("A"); err != nil {
		t.Errorf("DeleteSession on an empty store: %v", err)
	}
}

func TestDeleteServer(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, Record{Token: tok("A"), Server: "wf", Session: "A"})
	mustPut(t, s, Record{Token: tok("B"), Server: "wf", Session: "B"})
	mustPut(t, s, Record{Token: tok("x"), Server: "x", Session: "A"})
	if err := s.DeleteServer("wf"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", "A", "B"} {
		wantNotFound(t, s, "wf", id)
	}
	if names := dirNames(t, s.serverDir("wf")); len(names) != 0 {
		t.Errorf("token files left: %v", names)
	}
	if got := mustGet(t, s, "x", "A"); got.Token != tok("x") {
		t.Errorf("x/A = %.20q", got.Token)
	}
	if err := s.DeleteServer("never"); err != nil {
		t.Errorf("DeleteServer of an unknown server: %v", err)
	}
}

func TestListAndServers(t *testing.T) {
	s := newStore(t)
	if keys, err := s.Servers(); err != nil || len(keys) != 0 {
		t.Errorf("Servers on an empty store = %v, %v", keys, err)
	}
	if recs, errs := s.List(""); len(recs) != 0 || len(errs) != 0 {
		t.Errorf("List on an empty store = %v, %v", recs, errs)
	}
	mustPut(t, s, Record{Token: tok("A"), Server: "wf", Session: "A"})
	mustPut(t, s, Record{Token: tok("B"), Server: "wf", Session: "B"})
	mustPut(t, s, Record{Token: tok("x"), Server: "x/y", Session: "A"})
	// Leftovers of a killed writer and the lock are not tokens.
	dir := s.serverDir("wf")
	if err := os.WriteFile(filepath.Join(dir, tempPrefix+"123"), []byte(`{"token":"`+tok("torn")), 0o600); err != nil {
		t.Fatal(err)
	}

	keys, err := s.Servers()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	want := []string{ServerKey("wf"), ServerKey("x/y")}
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("Servers = %v; want %v", keys, want)
	}

	recs, errs := s.List("wf")
	if len(errs) != 0 {
		t.Fatalf("List(wf) errors: %v", errs)
	}
	got := map[string]bool{} // "session/current" -> seen
	for _, r := range recs {
		if r.Server != "wf" {
			t.Errorf("List(wf) returned a record of %q", r.Server)
		}
		if strings.Contains(r.Token, "torn") {
			t.Errorf("List read a temp file as a token")
		}
		key := r.Session
		if r.Current {
			key += "/current"
			if r.Token != tok("B") {
				t.Errorf("current record holds %.20q; want B's", r.Token)
			}
		}
		got[key] = true
	}
	if len(recs) != 3 || !got["A"] || !got["B"] || !got["B/current"] {
		t.Errorf("List(wf) = %d records %v; want A, B, B/current", len(recs), got)
	}

	all, errs := s.List("")
	if len(errs) != 0 || len(all) != 5 {
		t.Errorf("List(\"\") = %d records, errors %v; want 5 records", len(all), errs)
	}
	if recs, errs := s.List("nosuch"); len(recs) != 0 || len(errs) != 0 {
		t.Errorf("List(nosuch) = %v, %v", recs, errs)
	}

	// A damaged token file comes back as an error, and the rest still lists.
	if err := os.WriteFile(filepath.Join(dir, SessionFile("C")), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, errs = s.List("wf")
	if len(recs) != 3 || len(errs) != 1 {
		t.Errorf("List with one damaged file = %d records, %v; want 3 records and 1 error", len(recs), errs)
	}
}

var sessionFileRE = regexp.MustCompile(`^s-[0-9a-f]{40}\.json$`)

// hostileNames are server names and session ids an attacker could choose.
var hostileNames = []string{
	"", ".", "..", "../", "../..", "../../../../etc/passwd", "/etc/passwd", "/", "//x",
	`..\..\x`, `C:\Windows\x`, "a/b", "a/../../b", "./x", ".hidden", ".lock", ".tmp-1",
	currentFile, "tokens", "s-" + strings.Repeat("0", 40) + ".json",
	"a\x00b", "\x00", "nul\x00/../x", "line\nbreak", "tab\tx", "\x7f\xff\xfe",
	strings.Repeat("x", 4096), strings.Repeat("../", 1400), strings.Repeat("é", 2048),
	"séssion-日本語-🔑", "\u202egnp.exe", "ＡＢＣ", "a b", "wf", "WF", "my-server_1.x",
	strings.Repeat("a", 64), strings.Repeat("a", 65),
}

func TestNamesStayInsideTheDir(t *testing.T) {
	root := filepath.Join("/", "base", "state")
	keys := map[string]string{}
	files := map[string]string{}
	for _, name := range hostileNames {
		k := ServerKey(name)
		if k == "" || k == "." || k == ".." || strings.HasPrefix(k, ".") ||
			strings.ContainsAny(k, "/\\\x00") || len(k) > 64 || filepath.Base(k) != k {
			t.Errorf("ServerKey(%.40q) = %q: not one plain path element", name, k)
		}
		p := filepath.Join(root, tokensDir, k)
		if filepath.Dir(p) != filepath.Join(root, tokensDir) {
			t.Errorf("ServerKey(%.40q) leads to %q", name, p)
		}
		if prev, dup := keys[k]; dup {
			t.Errorf("ServerKey(%.40q) = ServerKey(%.40q) = %q", name, prev, k)
		}
		keys[k] = name

		f := SessionFile(name)
		switch {
		case name == "" && f != currentFile:
			t.Errorf("SessionFile(\"\") = %q; want %q", f, currentFile)
		case name != "" && !sessionFileRE.MatchString(f):
			t.Errorf("SessionFile(%.40q) = %q; want s-<40 hex>.json", name, f)
		}
		if prev, dup := files[f]; dup {
			t.Errorf("SessionFile(%.40q) = SessionFile(%.40q) = %q", name, prev, f)
		}
		files[f] = name
	}
	// Plainly safe names are kept, so a human can find them.
	for _, name := range []string{"wf", "WF", "my-server_1.x", strings.Repeat("a", 64)} {
		if k := ServerKey(name); k != name {
			t.Errorf("ServerKey(%q) = %q; want the name itself", name, k)
		}
	}
}

// TestHostileNamesOnDisk stores a token under every hostile server name and
// session id, reads each back, and then walks the parent of the state dir:
// every file must sit in tokens/<one element>/ under the state dir.
func TestHostileNamesOnDisk(t *testing.T) {
	parent, _ := fastDir(t)
	s := New(filepath.Join(parent, "state"))
	for i, name := range hostileNames {
		mustPut(t, s, Record{Token: tok("srv" + string(rune('a'+i%26))), Server: name, Session: "fixed"})
		mustPut(t, s, Record{Token: tok("ses"), Server: "wf", Session: name})
	}
	for i, name := range hostileNames {
		// Invalid UTF-8 is mangled in the record's fields; the token is not
		// (TestInvalidUTF8Session shows what that breaks).
		field := name
		if !utf8.ValidString(name) {
			field = mangled(name)
		}
		if got := mustGet(t, s, name, "fixed"); got.Token != tok("srv"+string(rune('a'+i%26))) || got.Server != field {
			t.Errorf("server %.40q: got %.20q for server %.40q", name, got.Token, got.Server)
		}
		if name == "" {
			continue // the current token: last written by another session
		}
		if got := mustGet(t, s, "wf", name); got.Session != field {
			t.Errorf("session %.40q: read back the record of session %.40q", name, got.Session)
		}
	}
	tokens := filepath.Join(s.Dir, tokensDir)
	err := filepath.WalkDir(parent, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(parent, path)
		parts := strings.Split(rel, string(filepath.Separator))
		switch {
		case rel == "." || rel == "state" || rel == filepath.Join("state", tokensDir):
			if !d.IsDir() {
				t.Errorf("%s is not a directory", rel)
			}
		case len(parts) == 3 && parts[0] == "state" && parts[1] == tokensDir && d.IsDir():
		case len(parts) == 4 && parts[0] == "state" && parts[1] == tokensDir && !d.IsDir():
			if n := parts[3]; !strings.HasPrefix(n, lockPrefix) && !isTokenFile(n) {
				t.Errorf("unexpected file %s", rel)
			}
		default:
			t.Errorf("unexpected path %s (outside %s)", rel, tokens)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	recs, errs := s.List("")
	if len(errs) != 0 {
		t.Errorf("List errors: %v", errs)
	}
	// Every hostile server but wf holds "fixed" and current; wf holds one
	// file per non-empty session id ("fixed" and n-1 hostile ones) and current.
	n := len(hostileNames)
	if want := 2*(n-1) + n + 1; len(recs) != want {
		t.Errorf("List found %d records; want %d", len(recs), want)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv(DirEnv, "/explicit/dir")
	t.Setenv("XDG_STATE_HOME", "/xdg")
	if d, _ := DefaultDir(); d != "/explicit/dir" {
		t.Errorf("with %s: %q", DirEnv, d)
	}
	t.Setenv(DirEnv, "")
	if d, _ := DefaultDir(); d != filepath.Join("/xdg", "interceptor") {
		t.Errorf("with XDG_STATE_HOME: %q", d)
	}
	t.Setenv("XDG_STATE_HOME", "relative/xdg") // not absolute: ignored, per the XDG spec
	d, err := DefaultDir()
	if err != nil || !filepath.IsAbs(d) || strings.Contains(d, "relative") {
		t.Errorf("with a relative XDG_STATE_HOME: %q, %v", d, err)
	}
}

// TestBadRecordsNeverEchoTheToken: errors about a damaged token file name the
// file, never its content.
func TestBadRecordsNeverEchoTheToken(t *testing.T) {
	secret := tok("SECRET")
	for name, content := range map[string]string{
		"truncated":  `{"token":"` + secret,
		"not string": `{"token":["` + secret + `"]}`,
		"empty tok":  `{"token":"","other":"` + secret + `"}`,
		"too big":    `{"token":"` + secret + `","pad":"` + strings.Repeat("p", maxRecord) + `"}`,
		"trailing":   `{"token":"` + secret + `"} {"x":1}`,
		"NUL":        "{\"token\":\"" + secret + "\x00\"}",
		"empty":      "",
	} {
		s := newStore(t)
		mustPut(t, s, Record{Token: tok("ok"), Server: "wf"})
		if err := os.WriteFile(filepath.Join(s.serverDir("wf"), currentFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		rec, err := s.Get("wf", "")
		if err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("%s: Get = %.20q, %v; want an error", name, rec.Token, err)
			continue
		}
		if strings.Contains(err.Error(), secret[:40]) {
			t.Errorf("%s: error echoes the token: %v", name, err)
		}
		if !strings.Contains(err.Error(), currentFile) {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
		_, errs := s.List("wf")
		if len(errs) != 1 || strings.Contains(errs[0].Error(), secret[:40]) {
			t.Errorf("%s: List errors = %v", name, errs)
		}
	}
}

// mangled is what sjson stores for a string with invalid UTF-8: each bad byte
// becomes U+FFFD.
func mangled(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		b.WriteRune(r) // RuneError for a bad byte, n == 1
		s = s[n:]
	}
	return b.String()
}

// TestInvalidUTF8Session: a session id is untrusted bytes; one that is not
// valid UTF-8 must still be able to retire the current token it wrote.
func TestInvalidUTF8Session(t *testing.T) {
	for _, id := range []string{"sess-\xff", "\xc3\x28", "ok-\xed\xa0\x80"} {
		s := newStore(t)
		mustPut(t, s, Record{Token: tok("A"), Server: "wf", Session: id})
		if got := mustGet(t, s, "wf", id); got.Token != tok("A") {
			t.Fatalf("%q: Get = %.20q", id, got.Token)
		}
		if err := s.Delete("wf", id); err != nil {
			t.Fatal(err)
		}
		wantNotFound(t, s, "wf", id)
		// The current token that session wrote goes with it, although the
		// record keeps the id with its invalid bytes replaced.
		wantNotFound(t, s, "wf", "")
	}
}

// FuzzNames: no server name or session id leads out of the server's dir.
func FuzzNames(f *testing.F) {
	for _, n := range hostileNames {
		f.Add(n, n)
	}
	f.Fuzz(func(t *testing.T, server, session string) {
		k := ServerKey(server)
		if k == "" || k == "." || k == ".." || strings.HasPrefix(k, ".") || strings.ContainsAny(k, "/\\\x00") || len(k) > 64 {
			t.Fatalf("ServerKey(%q) = %q", server, k)
		}
		if server != k && !strings.HasPrefix(k, "h-") {
			t.Fatalf("ServerKey(%q) = %q: changed but not hashed", server, k)
		}
		fn := SessionFile(session)
		if session == "" && fn != currentFile || session != "" && !sessionFileRE.MatchString(fn) {
			t.Fatalf("SessionFile(%q) = %q", session, fn)
		}
	})
}

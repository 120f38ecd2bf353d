package reliability

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/state"
)

// A command of the binary, run against a prepared state dir.
type dirCmd struct {
	name string
	hook bool
	args func(dir string) []string
	in   func(t testing.TB) []byte
}

const hostileSession = "hostile-S"

var (
	oldTok = mkToken("hostile-old")
	newTok = mkToken("hostile-new")
)

var dirCmds = []dirCmd{
	{"capture", true, func(d string) []string { return hookArgs("capture", d) },
		func(t testing.TB) []byte { return clientNamed(t, "codex").post(t, hostileSession, newTok) }},
	{"inject", true, func(d string) []string { return hookArgs("inject", d) },
		func(t testing.TB) []byte { return clientNamed(t, "codex").pre(t, hostileSession) }},
	{"clear", true, func(d string) []string { return hookArgs("clear", d) },
		func(t testing.TB) []byte { return clientNamed(t, "codex").end(t, hostileSession) }},
	{"clear --server", true, func(d string) []string { return hookArgs("clear", d, "--server", server) },
		func(t testing.TB) []byte { return clientNamed(t, "codex").end(t, hostileSession) }},
	{"token show", false, func(d string) []string {
		return []string{"token", "show", "--state-dir", d, "--server", server, "--session", hostileSession, "--reveal"}
	}, nil},
	{"token show --all", false, func(d string) []string {
		return []string{"token", "show", "--state-dir", d, "--server", server, "--all"}
	}, nil},
	{"token set", false, func(d string) []string {
		return []string{"token", "set", "--state-dir", d, "--server", server, "--session", hostileSession}
	}, func(testing.TB) []byte { return []byte(newTok + "\n") }},
	{"token clear", false, func(d string) []string {
		return []string{"token", "clear", "--state-dir", d, "--server", server, "--session", hostileSession}
	}, nil},
}

// What a command must do in a hostile case.
type want struct {
	refuse  string // one stderr line mentioning this (hooks exit 0, token commands 1)
	replace bool   // it writes its token by replacing the planted file (rename), not through it
	partial string // token show --all: lists the readable records (masked), exit 1, one line saying this
}

type dirCase struct {
	name string
	// setup turns a seeded state dir hostile and returns the paths outside it
	// (link targets) that must stay as they are.
	setup func(t *testing.T, parent, dir string) []string
	want  map[string]want // by command; missing: refuse with defaultWhy
	why   string          // default refusal keyword
	root  bool            // needs root
}

func serverDir(dir string) string { return filepath.Join(dir, "tokens", server) }
func sessionFile(dir string) string {
	return filepath.Join(serverDir(dir), state.SessionFile(hostileSession))
}

// moveAndLink replaces path with a symlink to a copy of it outside the state
// dir and returns the copy.
func moveAndLink(t *testing.T, parent, path string) string {
	t.Helper()
	target := filepath.Join(parent, "elsewhere")
	if err := os.Rename(path, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	return target
}

// outsideFile plants a private file outside the state dir holding a valid
// token record, and returns it.
func outsideFile(t *testing.T, parent string) string {
	t.Helper()
	p := filepath.Join(parent, "outside.json")
	rec := fmt.Sprintf(`{"token":%q,"server":"wf","session":%q}`+"\n", mkToken("planted"), hostileSession)
	if err := os.WriteFile(p, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func hostileCases() []dirCase {
	// Every command refuses a hostile dir at any level above the token
	// files (the default want).
	sym := map[string]want{}
	tokSym := map[string]want{}
	// A planted file where the session's token file goes: readers refuse it,
	// writers replace it, deleters remove it; none follows it.
	planted := func(why string) map[string]want {
		return map[string]want{
			"capture": {replace: true}, "token set": {replace: true},
			"clear": {}, "clear --server": {}, "token clear": {},
			"inject": {refuse: why}, "token show": {refuse: why}, "token show --all": {partial: why},
		}
	}
	return []dirCase{
		{name: "state dir is a symlink", why: "symlink", want: sym,
			setup: func(t *testing.T, parent, dir string) []string { return []string{moveAndLink(t, parent, dir)} }},
		{name: "tokens dir is a symlink", why: "symlink", want: tokSym,
			setup: func(t *testing.T, parent, dir string) []string {
				return []string{moveAndLink(t, parent, filepath.Join(dir, "tokens"))}
			}},
		{name: "server dir is a symlink", why: "symlink", want: map[string]want{"clear": {}},
			setup: func(t *testing.T, parent, dir string) []string {
				return []string{moveAndLink(t, parent, serverDir(dir))}
			}},
		{name: "token file is a symlink", why: "symlink", want: planted("symlink"),
			setup: func(t *testing.T, parent, dir string) []string {
				out := outsideFile(t, parent)
				os.Remove(sessionFile(dir))
				if err := os.Symlink(out, sessionFile(dir)); err != nil {
					t.Fatal(err)
				}
				return []string{out}
			}},
		{name: "lock file is a symlink", why: "lock file",
			want: map[string]want{"inject": {}, "token show": {}, "token show --all": {}},
			setup: func(t *testing.T, parent, dir string) []string {
				victim := filepath.Join(parent, "victim")
				os.WriteFile(victim, []byte("keep"), 0o644)
				// The session's lock and current's: every writer takes one.
				for _, name := range []string{state.LockName(hostileSession), state.LockName("")} {
					lock := filepath.Join(serverDir(dir), name)
					os.Remove(lock)
					if err := os.Symlink(victim, lock); err != nil {
						t.Fatal(err)
					}
				}
				return []string{victim}
			}},
		{name: "state dir owned by another uid", why: "owned by uid 4242", root: true, want: sym,
			setup: func(t *testing.T, parent, dir string) []string { chown(t, dir); return nil }},
		{name: "server dir owned by another uid", why: "owned by uid 4242", root: true, want: map[string]want{},
			setup: func(t *testing.T, parent, dir string) []string { chown(t, serverDir(dir)); return nil }},
		{name: "token file owned by another uid", why: "owned by uid 4242", root: true, want: planted("owned by uid 4242"),
			setup: func(t *testing.T, parent, dir string) []string { chown(t, sessionFile(dir)); return nil }},
		{name: "state dir is 0755", why: "chmod 700", want: sym,
			setup: func(t *testing.T, parent, dir string) []string { os.Chmod(dir, 0o755); return nil }},
		{name: "tokens dir is 0770", why: "chmod 700", want: tokSym,
			setup: func(t *testing.T, parent, dir string) []string {
				os.Chmod(filepath.Join(dir, "tokens"), 0o770)
				return nil
			}},
		{name: "server dir is 0701", why: "chmod 700", want: map[string]want{},
			setup: func(t *testing.T, parent, dir string) []string { os.Chmod(serverDir(dir), 0o701); return nil }},
		{name: "token file is 0644", why: "chmod 600", want: planted("chmod 600"),
			setup: func(t *testing.T, parent, dir string) []string {
				detach(t, sessionFile(dir))
				os.Chmod(sessionFile(dir), 0o644)
				return nil
			}},
		{name: "token file is a FIFO", why: "not a regular file", want: planted("not a regular file"),
			setup: func(t *testing.T, parent, dir string) []string {
				os.Remove(sessionFile(dir))
				if err := syscall.Mkfifo(sessionFile(dir), 0o600); err != nil {
					t.Fatal(err)
				}
				return nil
			}},
		{name: "token file is a directory", why: "not a regular file",
			want: map[string]want{
				"capture": {refuse: "file exists"}, "token set": {refuse: "file exists"},
				"clear": {}, "clear --server": {}, "token clear": {}, "token show --all": {partial: "not a regular file"},
			},
			setup: func(t *testing.T, parent, dir string) []string {
				os.Remove(sessionFile(dir))
				if err := os.Mkdir(sessionFile(dir), 0o700); err != nil {
					t.Fatal(err)
				}
				return nil
			}},
	}
}

// detach gives a token file an inode of its own (the store may hard-link a
// session's file and current), so a change to its mode or owner stays its own.
func detach(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	b, err := os.ReadFile(path)
	if err == nil {
		err = os.Remove(path)
	}
	if err == nil {
		err = os.WriteFile(path, b, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string) {
	t.Helper()
	detach(t, path)
	if err := os.Lchown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
}

// seed makes a state dir holding oldTok for the hostile session (and as
// current), the way a first capture leaves it.
func seed(t testing.TB, dir string) {
	t.Helper()
	if err := state.New(dir).Put(state.Record{Token: oldTok, Server: server, Session: hostileSession, Client: "codex"}); err != nil {
		t.Fatal(err)
	}
}

// TestHostileStateDir runs every command against every hostile state dir:
// each refuses with exit 0 (hooks) or 1 (token commands), no stdout and one
// clear stderr line, or, where a writer replaces a planted file, replaces it
// without following it. Nothing outside the state dir changes, and no token
// shows in any message.
func TestHostileStateDir(t *testing.T) {
	runs, refusals := 0, 0
	for _, dc := range hostileCases() {
		t.Run(dc.name, func(t *testing.T) {
			if dc.root && os.Geteuid() != 0 {
				t.Skip("needs root to chown to another uid (simulates a foreign owner); not run")
			}
			for _, cmd := range dirCmds {
				w, ok := dc.want[cmd.name]
				if !ok {
					w = want{refuse: dc.why}
				}
				parent := privateDir(t, true)
				dir := filepath.Join(parent, "state")
				seed(t, dir)
				watch := dc.setup(t, parent, dir)
				before := map[string]map[string]string{}
				for _, p := range watch {
					before[p] = tree(p)
				}
				var stdin []byte
				if cmd.in != nil {
					stdin = cmd.in(t)
				}
				r := run(t, stdin, runOpts{}, cmd.args(dir)...)
				runs++
				noLeak(t, r.stderr, "stderr of "+cmd.name, oldTok, newTok)
				noPanic(t, r)
				outsideSame := func(t *testing.T) {
					for _, p := range watch {
						for _, d := range diffTrees(before[p], tree(p)) {
							t.Errorf("%s: outside the state dir: %s under %s", cmd.name, d, p)
						}
					}
				}
				switch {
				case w.partial != "":
					if r.code != 1 || lines(r.stderr) != 1 || !strings.Contains(r.stderr, w.partial) || !strings.Contains(r.stdout, "(current)") {
						t.Errorf("%s: want the readable current record, exit 1 and one line saying %q\n%s", cmd.name, w.partial, r)
					}
					noLeak(t, r.stdout, "stdout of "+cmd.name+" without --reveal", oldTok, newTok)
					outsideSame(t)
				case w.refuse != "":
					refused(t, cmd, r, w.refuse)
					refusals++
					outsideSame(t)
				default:
					if r.code != 0 || lines(r.stderr) > 1 || (cmd.hook && r.stderr != "") {
						t.Errorf("%s: want success without following anything\n%s", cmd.name, r)
					}
					if cmd.name != "inject" && !strings.HasPrefix(cmd.name, "token show") && r.stdout != "" {
						t.Errorf("%s: unexpected stdout\n%s", cmd.name, r)
					}
					outsideSame(t)
					if w.replace {
						fi, err := os.Lstat(sessionFile(dir))
						if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
							t.Errorf("%s: the planted file was not replaced by a private regular file: %v %v", cmd.name, fi, err)
						} else if got := storeGet(t, dir, hostileSession); got != newTok {
							t.Errorf("%s: replaced, but the session holds %.20q", cmd.name, got)
						}
					}
				}
			}
		})
	}
	t.Logf("%d hostile state dir cases x %d commands: %d runs, %d asserted refusals (exit 0/1, no stdout, one line, nothing outside changed, no token in any message)",
		len(hostileCases()), len(dirCmds), runs, refusals)
}

func refused(t *testing.T, cmd dirCmd, r result, why string) {
	t.Helper()
	wantCode := 0
	if !cmd.hook {
		wantCode = 1
	}
	if r.code != wantCode || r.stdout != "" || lines(r.stderr) != 1 || !strings.Contains(r.stderr, why) {
		t.Errorf("%s: want exit %d, no stdout and one stderr line saying %q\n%s", cmd.name, wantCode, why, r)
	}
}

func noLeak(t testing.TB, text, where string, toks ...string) {
	t.Helper()
	for _, tok := range toks {
		if strings.Contains(text, tok) {
			t.Errorf("%s holds a token (%.12q…)", where, tok)
		}
	}
}

// TestReadOnlyStateDir: a state dir the user cannot write. As root (who
// writes anywhere) the binary runs as an unprivileged uid that owns the dir.
func TestReadOnlyStateDir(t *testing.T) {
	parent, err := os.MkdirTemp("", "interceptor-readonly-") // under /tmp, reachable by another uid
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(parent)
	dir := filepath.Join(parent, "state")
	seed(t, dir)
	paths := []string{dir, filepath.Join(dir, "tokens"), serverDir(dir), sessionFile(dir),
		filepath.Join(serverDir(dir), "current.json"), filepath.Join(serverDir(dir), state.LockName(hostileSession)),
		filepath.Join(serverDir(dir), state.LockName(""))}
	var opts runOpts
	if os.Geteuid() == 0 {
		const uid = 4243
		if err := os.Chmod(parent, 0o711); err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if err := os.Lchown(p, uid, uid); err != nil {
				t.Fatal(err)
			}
		}
		opts.cred = &syscall.Credential{Uid: uid, Gid: uid}
		opts.env = []string{"HOME=/nonexistent"}
	}
	if err := os.Chmod(serverDir(dir), 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(serverDir(dir), 0o700)
	c := clientNamed(t, "codex")
	r := run(t, c.post(t, hostileSession, newTok), opts, hookArgs("capture", dir)...)
	hookOK(t, r, 1, "permission denied")
	noLeak(t, r.stderr, "stderr", oldTok, newTok)
	refusal := strings.TrimSpace(r.stderr)
	r = run(t, c.pre(t, hostileSession), opts, hookArgs("inject", dir)...)
	if got := injected(t, c, r); got != oldTok || r.stderr != "" {
		t.Errorf("inject from a read-only dir: %.20q\n%s", got, r)
	}
	os.Chmod(serverDir(dir), 0o700)
	for _, p := range paths {
		os.Lchown(p, os.Geteuid(), os.Getegid())
	}
	if got := storeGet(t, dir, hostileSession); got != oldTok {
		t.Errorf("the refused capture changed the token")
	}
	if n := countFiles(dir, ".tmp-"); n != 0 {
		t.Errorf("%d temp files", n)
	}
	as := os.Geteuid()
	if opts.cred != nil {
		as = int(opts.cred.Uid)
	}
	t.Logf("read-only server dir (binary run as uid %d): capture refused with one line (%q), the old token still injected", as, refusal)
}

// TestFullDisk: the state dir on a 64 KiB tmpfs, filled up. A capture fails
// with one line; the old token stays whole and injectable; no temp file is
// left; once space is back, capture works again.
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tiny tmpfs; full disk not exercised (see RESULTS.md)")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); full disk not exercised", err, out)
	}
	defer exec.Command("umount", "-l", mnt).Run()
	dir := filepath.Join(mnt, "state")
	seed(t, dir)
	// Fill the file system.
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	// Fill the last partial block too.
	for {
		if _, err := f.Write(buf[:1]); err != nil {
			break
		}
	}
	f.Close()
	c := clientNamed(t, "codex")
	big := mkToken("full-disk") + strings.Repeat("Z", 8000) // more than any slack left
	r := run(t, c.post(t, hostileSession, big), runOpts{}, hookArgs("capture", dir)...)
	hookOK(t, r, 1, "no space left on device")
	noLeak(t, r.stderr, "stderr", oldTok, big)
	refusal := strings.TrimSpace(r.stderr)
	if got := storeGet(t, dir, hostileSession); got != oldTok {
		t.Errorf("after a write on a full disk the session holds %.20q; want the old token whole", got)
	}
	if got := storeGet(t, dir, ""); got != oldTok {
		t.Errorf("after a write on a full disk current holds %.20q", got)
	}
	temps := countFiles(dir, ".tmp-")
	if temps != 0 {
		t.Errorf("%d temp files left on the full disk", temps)
	}
	r = run(t, c.pre(t, hostileSession), runOpts{}, hookArgs("inject", dir)...)
	if got := injected(t, c, r); got != oldTok {
		t.Errorf("inject on a full disk: %.20q\n%s", got, r)
	}
	os.Remove(filepath.Join(mnt, "filler"))
	hookOK(t, run(t, c.post(t, hostileSession, newTok), runOpts{}, hookArgs("capture", dir)...), 0)
	if got := storeGet(t, dir, hostileSession); got != newTok {
		t.Errorf("capture after space came back: %.20q", got)
	}
	t.Logf("64 KiB tmpfs filled: capture refused with one line (%q), old token intact and injected, %d temp files left; works again once space is back",
		refusal, temps)
}

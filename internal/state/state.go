// Package state is the token store: one small file per server and client
// session, plus a per-server "current" file for events that carry no session.
//
// Layout under the state dir (0700, owned by the user, never a symlink):
//
//	tokens/<server>/s-<sha256(session)>.json   one session's values
//	tokens/<server>/current.json               the server's latest (--sessionless)
//	tokens/<server>/.lock-<xx>                 serializes the writers of the
//	                                           sessions whose hash starts xx
//	tokens/<server>/.lock-current              serializes writers of current.json
//
// Writers write a temp file (privfs.Prepare), take the lock of what they
// replace and rename it over the old one, so a reader (which takes no lock) sees the old or the
// new record, never a torn or empty one. The locks are sharded by session:
// writers of different sessions rarely queue for each other, and gc never
// holds a lock a hook waits on for more than one small batch. Session ids
// are untrusted: they only ever reach the file system hashed.
package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// DirEnv names the environment variable that overrides the state dir.
const DirEnv = "INTERCEPTOR_STATE_DIR"

const (
	tokensDir   = "tokens"
	currentFile = "current.json"
	lockPrefix  = ".lock-"
	currentLock = ".lock-current"
	tempPrefix  = privfs.TempPrefix
	maxRecord   = 1 << 20 // a token is at most 16 KiB, its history at most maxHistory
	maxHistory  = 256 << 10
)

// MaxSessionLen bounds a session id. Clients send UUIDs; a longer id is
// refused up front rather than stored and then unreadable.
const MaxSessionLen = 16 << 10

// ErrNotFound means no token is held for that server and session.
var ErrNotFound = errors.New("no token held")

// DefaultHandle is the handle the one-token view of a record (Record.Token,
// Put) stands for: inject's default --meta-key.
const DefaultHandle = "session_token"

// Record is what one session holds for one server: each handle's values.
type Record struct {
	// Holding is each handle's live values and the one injected, by name.
	Holding token.Holding
	// Token and History are the one-token view of DefaultHandle: on Put,
	// Token is stored as its latest value (and the one injected); Get and
	// List fill both from Holding.
	Token   string
	History []string
	Server  string
	Session string // the session that wrote it; may be "" (no session)
	Client  string
	Updated time.Time
	Current bool // set by List on the server's current record

	sessionFile string // SessionFile(Session) as written, exact for any id
}

// Held is every value the record holds, of every handle (in name order),
// each handle's newest first: what views mask.
func (r Record) Held() token.Held {
	var out token.Held
	for _, name := range r.Names() {
		for _, v := range r.Holding[name].Values {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// Names are the record's handle names, sorted.
func (r Record) Names() []string {
	names := make([]string, 0, len(r.Holding))
	for n := range r.Holding {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// oneTokenView fills Token and History from DefaultHandle (or, for a record
// written before handles, the only handle it has).
func (r *Record) oneTokenView() {
	l, ok := r.Holding[DefaultHandle]
	if !ok && len(r.Holding) == 1 {
		for _, only := range r.Holding {
			l = only
		}
	}
	if len(l.Values) > 0 {
		r.Token, r.History = l.Values[0], l.Values[1:]
	}
}

// Store is a token store rooted at a directory.
type Store struct {
	Dir string
	// LockTimeout bounds how long a writer waits for another writer. A hook
	// must never hold up the agent, so this is short.
	LockTimeout time.Duration
}

// New returns a store rooted at dir. Nothing is created or checked until the
// store is used.
func New(dir string) *Store {
	return &Store{Dir: dir, LockTimeout: 2 * time.Second}
}

// DefaultDir is $INTERCEPTOR_STATE_DIR, else $XDG_STATE_HOME/interceptor,
// else the OS's per-user state location.
func DefaultDir() (string, error) {
	if d := os.Getenv(DirEnv); d != "" {
		return d, nil
	}
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "interceptor"), nil
	}
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "interceptor"), nil
		}
	case "darwin":
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, "Library", "Application Support", "interceptor"), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a state dir: %w (set %s or --state-dir)", err, DirEnv)
	}
	return filepath.Join(home, ".local", "state", "interceptor"), nil
}

// ServerKey is the directory name for a server: the name itself when it is
// plainly safe, else a hash of it.
func ServerKey(server string) string {
	if server != "" && len(server) <= 64 && server[0] != '.' && server != currentFile {
		safe := true
		for i := 0; i < len(server); i++ {
			c := server[i]
			if !(c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				safe = false
				break
			}
		}
		if safe {
			return server
		}
	}
	sum := sha256.Sum256([]byte(server))
	return "h-" + hex.EncodeToString(sum[:12])
}

// SessionFile is the file name holding a session's token; "" is the
// server's current token.
func SessionFile(session string) string {
	if session == "" {
		return currentFile
	}
	sum := sha256.Sum256([]byte(session))
	return "s-" + hex.EncodeToString(sum[:20]) + ".json"
}

// checkTree checks the state dir, its tokens dir and, when given, a server
// dir below them, top down: nothing below an unsafe dir is ever read or
// changed, and the problem highest up is the one reported.
func (s *Store) checkTree(serverDir string) error {
	dirs := []string{s.Dir, filepath.Join(s.Dir, tokensDir), serverDir}
	if serverDir == "" {
		dirs = dirs[:2]
	}
	for _, d := range dirs {
		if err := privfs.CheckDir(d); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) serverDir(server string) string {
	return filepath.Join(s.Dir, tokensDir, ServerKey(server))
}

// Get returns the token held for server and session (session "" reads the
// server's current token). It returns ErrNotFound when there is none.
func (s *Store) Get(server, session string) (Record, error) {
	if err := checkSession(session); err != nil {
		return Record{}, err
	}
	dir := s.serverDir(server)
	if err := s.checkTree(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Record{}, ErrNotFound
		}
		return Record{}, err
	}
	return readRecord(filepath.Join(dir, SessionFile(session)))
}

func checkSession(session string) error {
	if len(session) > MaxSessionLen {
		return fmt.Errorf("session id is %d bytes, more than the %d accepted", len(session), MaxSessionLen)
	}
	return nil
}

func readRecord(path string) (Record, error) {
	data, err := privfs.ReadFile(path, "token file", maxRecord)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Record{}, ErrNotFound
		}
		return Record{}, err
	}
	return parseRecord(path, data)
}

func parseRecord(path string, data []byte) (Record, error) {
	if !gjson.ValidBytes(data) {
		return Record{}, fmt.Errorf("token file %s: not valid JSON", path)
	}
	r := gjson.ParseBytes(data)
	rec := Record{
		Holding:     token.Holding{},
		Server:      r.Get("server").Str,
		Session:     r.Get("session").Str,
		Client:      r.Get("client").Str,
		sessionFile: r.Get("session_file").Str,
	}
	strs := func(v gjson.Result) token.Held {
		var out token.Held
		v.ForEach(func(_, s gjson.Result) bool {
			if s.Type == gjson.String && s.Str != "" && len(out) < token.MaxHeld {
				out = append(out, s.Str)
			}
			return true
		})
		return out
	}
	r.Get("handles").ForEach(func(name, h gjson.Result) bool {
		l := token.Live{Values: strs(h.Get("values")), Default: h.Get("default").Str, Withdrawn: h.Get("withdrawn").Str,
			MetaSeen: h.Get("meta_seen").Bool()}
		if name.Str != "" && (len(l.Values) > 0 || l.Withdrawn != "") {
			rec.Holding[name.Str] = l
		}
		return true
	})
	// A record written before handles: one token and its history, under
	// the name of the handle they were for (the hook's --meta-key), which
	// the record did not keep.
	if tok := r.Get("token"); tok.Type == gjson.String && tok.Str != "" && len(rec.Holding) == 0 {
		rec.Holding[legacyHandle] = token.Live{Values: append(token.Held{tok.Str}, strs(r.Get("history"))...), Default: tok.Str}
	}
	if len(rec.Holding) == 0 {
		return Record{}, fmt.Errorf("token file %s: holds no value", path)
	}
	if t, err := time.Parse(time.RFC3339Nano, r.Get("updated").Str); err == nil {
		rec.Updated = t
	}
	rec.oneTokenView()
	return rec, nil
}

// legacyHandle names the token of a record written before handles. Live
// reads it for any one handle asked of such a record (Record.Live).
const legacyHandle = ""

// Live is what the record holds of the named handle. A record written
// before handles holds one token, for whichever handle the hook that wrote
// it carried: it answers for any name.
func (r Record) Live(name string) token.Live {
	if l, ok := r.Holding[name]; ok {
		return l
	}
	return r.Holding[legacyHandle]
}

func encodeRecord(rec Record) ([]byte, error) {
	out := []byte("{}")
	var err error
	for _, kv := range [][2]string{
		{"server", rec.Server},
		{"session", rec.Session},
		{"session_file", SessionFile(rec.Session)},
		{"client", rec.Client},
		{"updated", rec.Updated.UTC().Format(time.RFC3339Nano)},
	} {
		if out, err = sjson.SetBytes(out, kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	handles := []byte{'{'}
	for _, name := range rec.Names() {
		if name == legacyHandle {
			continue
		}
		l := rec.Holding[name]
		if len(handles) > 1 {
			handles = append(handles, ',')
		}
		handles = rawjson.AppendString(handles, name)
		handles = append(handles, `:{"values":[`...)
		for i, v := range l.Values {
			if i > 0 {
				handles = append(handles, ',')
			}
			handles = rawjson.AppendString(handles, v)
		}
		handles = append(handles, `],"default":`...)
		handles = rawjson.AppendString(handles, l.Default)
		if l.Withdrawn != "" {
			handles = append(handles, `,"withdrawn":`...)
			handles = rawjson.AppendString(handles, l.Withdrawn)
		}
		if l.MetaSeen {
			handles = append(handles, `,"meta_seen":true`...)
		}
		handles = append(handles, '}')
	}
	if out, err = sjson.SetRawBytes(out, "handles", append(handles, '}')); err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Put stores rec.Token for rec.Server under rec.Session, as the latest
// value (and the one injected) of DefaultHandle, and also as the server's
// current record: the one-token API of `token set` and the proxy.
func (s *Store) Put(rec Record) error {
	if err := token.Validate(rec.Token); err != nil {
		return fmt.Errorf("token file for %s: %w", rec.Server, err)
	}
	return s.update(rec, true, func(h token.Holding) (token.Holding, bool) {
		l := h[DefaultHandle]
		if _, ok := h[DefaultHandle]; !ok {
			l = h[legacyHandle]
			delete(h, legacyHandle)
		}
		h[DefaultHandle] = token.Live{Values: l.Values.Push(rec.Token), Default: rec.Token, MetaSeen: l.MetaSeen}
		return h, true
	})
}

// Update changes what session holds for server: fn gets what is held now
// (an empty Holding when nothing is, never nil; its own copy) and returns
// what to hold, or false to leave the record as it is. fn may be called
// more than once (when another writer of the session got in between) and
// must depend on its argument only. With alsoCurrent the record is also the
// server's current one, which events without a session read when the user
// opts in to that (a session's own writes need no other session's lock).
func (s *Store) Update(server, session, client string, alsoCurrent bool, fn func(token.Holding) (token.Holding, bool)) error {
	return s.update(Record{Server: server, Session: session, Client: client}, alsoCurrent, fn)
}

func (s *Store) update(rec Record, alsoCurrent bool, fn func(token.Holding) (token.Holding, bool)) error {
	if err := checkSession(rec.Session); err != nil {
		return err
	}
	if rec.Updated.IsZero() {
		rec.Updated = time.Now()
	}
	// Nothing is created until there is something to write: a result that
	// gives no value leaves no trace.
	dir := s.serverDir(rec.Server)
	switch err := s.checkTree(dir); {
	case err == nil, errors.Is(err, fs.ErrNotExist):
	default:
		return err
	}
	w := &recordWrite{s: s, rec: rec, dir: dir, fn: fn, names: []string{currentFile}}
	locks := []string{currentLock}
	if rec.Session != "" {
		w.names, locks = []string{SessionFile(rec.Session)}, []string{lockOf(SessionFile(rec.Session))}
		if alsoCurrent {
			w.names, locks = append(w.names, currentFile), append(locks, currentLock)
		}
	}
	defer w.discard()
	// The new record depends on the old one. It is read and the new one
	// written before the lock is taken; under the lock a stat checks the
	// old file was not replaced since (files are only ever renamed over, so
	// a replaced file is another inode), and writers still queue for
	// renames, not for disk writes. Another writer of the same session in
	// between means doing it again, under the lock.
	seen, write, err := w.prepare()
	if err != nil || !write {
		return err
	}
	var replaced []*os.File // freed once the locks are let go (openReplaced)
	defer func() {
		for _, f := range replaced {
			f.Close()
		}
	}()
	return s.locked(dir, locks, func() error {
		if now, _ := os.Lstat(w.own()); (now == nil) != (seen == nil) || now != nil && !os.SameFile(now, seen) {
			w.discard()
			if _, write, err := w.prepare(); err != nil || !write {
				return err
			}
		}
		replaced = openReplaced(dir, w.names)
		for _, r := range w.reps {
			if err := r.Commit(); err != nil {
				return err
			}
		}
		return nil
	})
}

// recordWrite is one update of a record: the files it replaces (names, in
// dir: the session's, and current's too when asked), and the new record
// written beside them, not yet in place (reps, one per name).
type recordWrite struct {
	s     *Store
	rec   Record
	dir   string
	names []string
	fn    func(token.Holding) (token.Holding, bool)
	reps  []*privfs.Replacement
}

// own is the file the new record is built from.
func (w *recordWrite) own() string { return filepath.Join(w.dir, w.names[0]) }

// prepare reads the record (seen is its file as it was), lets fn change
// what it holds and, if fn says so, writes the new one beside it.
func (w *recordWrite) prepare() (seen fs.FileInfo, write bool, err error) {
	seen, _ = os.Lstat(w.own())
	prev, err := readRecord(w.own())
	if err != nil {
		prev = Record{} // none yet, or unreadable: start afresh
	}
	held := token.Holding{}
	for n, l := range prev.Holding {
		held[n] = token.Live{Values: slices.Clone(l.Values), Default: l.Default, Withdrawn: l.Withdrawn, MetaSeen: l.MetaSeen}
	}
	held, write = w.fn(held)
	if !write {
		return seen, false, nil
	}
	if _, err := w.s.ensureServerDir(w.rec.Server); err != nil {
		return nil, false, err
	}
	w.rec.Holding = bounded(held)
	data, err := encodeRecord(w.rec)
	if err != nil {
		return nil, false, fmt.Errorf("encoding token record: %w", err)
	}
	// No fsync (WriteOptions.Sync): a process killed at any point leaves
	// the old or the new token (the page cache survives it), and on a
	// power loss a file system that loses the data of a renamed file
	// leaves a record that fails to parse, which the reader reports
	// instead of using. A token dies with its agent session anyway; an
	// fsync would cost every tool call a disk flush.
	r, err := privfs.Prepare(w.own(), "token file", data, privfs.WriteOptions{})
	if err != nil {
		return nil, false, err
	}
	w.reps = append(w.reps, r)
	if len(w.names) == 2 {
		// The same record as the server's current one: a hard link to it,
		// not a second write.
		if r, err = r.Also(filepath.Join(w.dir, w.names[1]), data); err != nil {
			return nil, false, err
		}
		w.reps = append(w.reps, r)
	}
	return seen, true, nil
}

// discard drops the new record's files not yet in place.
func (w *recordWrite) discard() {
	for _, r := range w.reps {
		r.Discard()
	}
	w.reps = w.reps[:0]
}

// bounded cuts the oldest values so that a record stays small (maxHistory
// bytes of values in all); each handle keeps its latest value and the one
// injected.
func bounded(h token.Holding) token.Holding {
	size := 0
	names := make([]string, 0, len(h))
	for n, l := range h {
		names = append(names, n)
		size += len(l.Default)
	}
	sort.Strings(names)
	for _, n := range names {
		l := h[n]
		for i, v := range l.Values {
			if i > 0 && size+len(v) > maxHistory {
				l.Values = l.Values[:i]
				break
			}
			size += len(v)
		}
		if l.Default != "" && !slices.Contains(l.Values, l.Default) {
			l.Values = append(l.Values, l.Default)
		}
		h[n] = l
	}
	return h
}

// Delete forgets the token of server and session. When the server's current
// token was written by that session, it is forgotten too; session "" forgets
// the current token only. Deleting what is not there is not an error.
func (s *Store) Delete(server, session string) error {
	return s.deleteIn(s.serverDir(server), session)
}

// DeleteSession forgets a session's tokens for every server.
func (s *Store) DeleteSession(session string) error {
	keys, err := s.Servers()
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.deleteIn(filepath.Join(s.Dir, tokensDir, k), session); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) deleteIn(dir, session string) error {
	if err := s.checkTree(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	// What is not there needs no lock (and gets no lock file): a clear of a
	// session that never stored anything changes nothing on disk.
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(dir, name))
		return !errors.Is(err, fs.ErrNotExist)
	}
	if name := SessionFile(session); session != "" && exists(name) {
		if err := s.locked(dir, []string{lockOf(name)}, func() error { return removeFile(filepath.Join(dir, name)) }); err != nil {
			return err
		}
	}
	if !exists(currentFile) {
		return nil
	}
	return s.locked(dir, []string{currentLock}, func() error {
		cur, err := readRecord(filepath.Join(dir, currentFile))
		switch {
		case errors.Is(err, ErrNotFound):
			return nil
		case err != nil:
			return err
		}
		// Compared by file name: the raw id in the record may differ from
		// the event's (invalid UTF-8 is stored replaced), the hash never does.
		if session == "" || cur.sessionFile == SessionFile(session) {
			return removeFile(filepath.Join(dir, currentFile))
		}
		return nil
	})
}

// Servers lists the server keys that hold tokens.
func (s *Store) Servers() ([]string, error) {
	root := filepath.Join(s.Dir, tokensDir)
	if err := s.checkTree(""); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("state dir %s: %w", root, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// List returns every record held for server (current included), or for all
// servers when server is "". Files that cannot be read come back as errors,
// not skipped silently.
func (s *Store) List(server string) ([]Record, []error) {
	keys := []string{ServerKey(server)}
	if server == "" {
		var err error
		if keys, err = s.Servers(); err != nil {
			return nil, []error{err}
		}
	}
	var recs []Record
	var errs []error
	for _, k := range keys {
		r, e := s.listDir(filepath.Join(s.Dir, tokensDir, k))
		recs = append(recs, r...)
		errs = append(errs, e...)
	}
	return recs, errs
}

func (s *Store) listDir(dir string) ([]Record, []error) {
	if err := s.checkTree(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{err}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, []error{fmt.Errorf("state dir %s: %w", dir, err)}
	}
	var recs []Record
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !isTokenFile(name) {
			continue
		}
		rec, err := readRecord(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rec.Current = name == currentFile
		recs = append(recs, rec)
	}
	return recs, errs
}

func isTokenFile(name string) bool {
	return name == currentFile || strings.HasPrefix(name, "s-") && strings.HasSuffix(name, ".json")
}

// DeleteServer forgets every token held for server.
func (s *Store) DeleteServer(server string) error {
	dir := s.serverDir(server)
	if err := s.checkTree(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("state dir %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if isTokenFile(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return s.inBatches(dir, names, func(name string) error { return removeFile(filepath.Join(dir, name)) })
}

// LockName is the lock file the writers of session's record take, in the
// server's dir ("" names current's).
func LockName(session string) string { return lockOf(SessionFile(session)) }

// lockOf is the lock a token file's writers take: its session's shard,
// from the first byte of the session's hash in the name, or current's.
func lockOf(name string) string {
	if name == currentFile || len(name) < 4 {
		return currentLock
	}
	return lockPrefix + name[2:4]
}

// gcBatch bounds how many files one lock hold removes: a capture that finds
// gc in its shard waits for one batch, milliseconds, never for a sweep.
const gcBatch = 256

// inBatches runs fn on each token file of dir named in names, under the
// file's lock, at most gcBatch files per hold. It stops at the first error.
func (s *Store) inBatches(dir string, names []string, fn func(name string) error) error {
	byLock := map[string][]string{}
	for _, n := range names {
		byLock[lockOf(n)] = append(byLock[lockOf(n)], n)
	}
	locks := make([]string, 0, len(byLock))
	for l := range byLock {
		locks = append(locks, l)
	}
	sort.Strings(locks)
	for _, l := range locks {
		files := byLock[l]
		for len(files) > 0 {
			batch := files[:min(gcBatch, len(files))]
			files = files[len(batch):]
			err := s.locked(dir, []string{l}, func() error {
				for _, n := range batch {
					if err := fn(n); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Store) ensureServerDir(server string) (string, error) {
	if err := ensureDir(s.Dir, true); err != nil {
		return "", err
	}
	if err := ensureDir(filepath.Join(s.Dir, tokensDir), false); err != nil {
		return "", err
	}
	dir := s.serverDir(server)
	return dir, ensureDir(dir, false)
}

// ensureDir creates dir with mode 0700 if it is missing (and its parents too
// when parents is set), then checks that it is safe to use.
func ensureDir(dir string, parents bool) error {
	err := privfs.CheckDir(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	mk := os.Mkdir
	if parents {
		mk = os.MkdirAll
	}
	if err := mk(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("state dir %s: %w", dir, err)
	}
	return privfs.CheckDir(dir)
}

// locked runs fn holding the named locks of dir, taken in the order given
// (a session's shard before current's, everywhere), each waited for at most
// LockTimeout (privfs.Locked: a blocking flock).
func (s *Store) locked(dir string, locks []string, fn func() error) error {
	if len(locks) == 0 {
		return fn()
	}
	return privfs.Locked(filepath.Join(dir, locks[0]), "token", s.LockTimeout, func() error {
		return s.locked(dir, locks[1:], fn)
	})
}

func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("token file %s: %w", path, err)
	}
	return nil
}

// AdoptLegacy moves the token of a record written before handles to the
// handle name, when h holds nothing under that name yet: the one handle
// of flag mode takes over what the hook stored before an upgrade.
func AdoptLegacy(h token.Holding, name string) {
	if l, ok := h[legacyHandle]; ok {
		if _, has := h[name]; !has {
			h[name] = l
		}
		delete(h, legacyHandle)
	}
}

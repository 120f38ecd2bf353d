package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/rogpeppe/go-internal/diff"
)

// Scope is where a config lives: the user's home or a project.
type Scope string

const (
	User    Scope = "user"
	Project Scope = "project"
)

// ParseScope reads "user" or "project".
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case User, Project:
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q: use user or project", s)
}

// BackupSuffix names the copy of a file kept before its first change.
const BackupSuffix = ".interceptor-backup"

// Env is where the clients keep their configs.
type Env struct {
	Home    string // the user's home
	Project string // the project dir (absolute), for project scope
	// Getenv reads the variables that move a config dir (hooks.Root.Var,
	// e.g. $XDG_CONFIG_HOME); nil: none is set.
	Getenv func(string) string
}

// EnvFromOS reads the environment; project is the project dir ("" = cwd).
func EnvFromOS(project string) (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, fmt.Errorf("cannot find your home dir: %w", err)
	}
	if project == "" {
		if project, err = os.Getwd(); err != nil {
			return Env{}, err
		}
	}
	if project, err = filepath.Abs(project); err != nil {
		return Env{}, err
	}
	// A project dir that does not exist is a typo: writing its config would
	// create the whole tree, and reading it finds nothing.
	if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
		return Env{}, fmt.Errorf("project dir %s: no such directory", project)
	}
	return Env{Home: home, Project: project, Getenv: os.Getenv}, nil
}

// Options say what to install.
type Options struct {
	Client  string
	Scope   Scope
	Server  string
	Bin     string // the interceptor binary, absolute
	HookBin string // the binary the hooks run (HookBin(Bin)); "": Bin (the proxy entry runs Bin)
	Hook    HookOptions
	Approve ApproveOptions
	DryRun  bool
	// Trust records the hooks as trusted where the client keeps that
	// (Codex's config.toml), as its own review would.
	Trust bool
	// Deliver installs, instead of the token hooks, the deliver hooks of a
	// human tools server (deliver.go).
	Deliver bool
	// Proxy rewrites the server's entry in the client's MCP config to run
	// through the proxy, instead of installing hooks (proxy.go).
	Proxy bool
}

// Result tells what install or uninstall did (or, with DryRun, would do).
type Result struct {
	Client string
	Scope  Scope
	Path   string
	// Where says where install --proxy found the server's entry (its
	// scope, and project), when it did.
	Where   string
	Changed bool
	Created bool // the file did not exist
	Removed bool // uninstall removed the file (install had created it)
	// Replaced: install found hooks for the server (with other options)
	// and put these in their place.
	Replaced bool
	Backup   string // the backup taken now, if any
	Diff     string // unified diff of the change
	Notes    []string
	// Warnings are what makes the hooks likely not to work as installed
	// (a server the client does not have).
	Warnings []string
	Trust    []string // what the user must do before the client runs the hooks

	before, after []byte   // the file before and (or, with DryRun, would be) after the change; nil: none
	removed       []string // the files removed
}

// client is one client's config format.
type client interface {
	// path is the config file (for OpenCode, the plugin file).
	path(env Env, scope Scope) string
	// merge returns doc with the server's hooks in it; doc is nil for a file
	// that does not exist.
	merge(path string, doc []byte, o Options) ([]byte, []string, error)
	// unmerge returns doc without the server's hooks; nil means the file
	// should go (install created it and nothing else is left).
	unmerge(path string, doc []byte, server string, created bool) ([]byte, error)
	// installed reports whether doc holds hooks install wrote (for any
	// server): such a file is not the user's original, and gets no backup.
	installed(doc []byte) bool
}

// Clients lists the client names install knows.
func Clients() []string {
	names := make([]string, 0, len(hooks.Clients))
	for _, c := range hooks.ByName() {
		names = append(names, c.Name)
	}
	return names
}

func lookup(name string) (client, *hooks.Client, error) {
	c, ok := hooks.FindClient(name)
	if !ok {
		return nil, nil, fmt.Errorf("unknown client %q: use one of %s", name, strings.Join(Clients(), ", "))
	}
	switch c.Layout {
	case hooks.Plugin:
		return shim{c}, c, nil
	case hooks.Scripts:
		return scripts{c, c.PreTool}, c, nil
	}
	return hookFile{c}, c, nil
}

// Resolve is the file p names in this environment ("" for none).
func (env Env) Resolve(p hooks.Path) string {
	if p.Rel == "" {
		return ""
	}
	return filepath.Join(env.Dir(p.Root), filepath.FromSlash(p.Rel))
}

// Dir is the directory r is in this environment: the dir its variable
// names, else its place under the home dir.
func (env Env) Dir(r hooks.Root) string {
	if r.Project {
		return env.Project
	}
	if r.Var != "" && env.Getenv != nil {
		if d := env.Getenv(r.Var); d != "" && (!r.AbsOnly || filepath.IsAbs(d)) {
			return d
		}
	}
	return filepath.Join(env.Home, r.Home)
}

// configPath is the file install edits for a client and scope.
func (env Env) configPath(c *hooks.Client, scope Scope) string {
	if scope == Project {
		return env.Resolve(c.Project)
	}
	return env.Resolve(c.User)
}

// ConfigPath is the file install edits for a client and scope.
func ConfigPath(env Env, clientName string, scope Scope) (string, error) {
	c, _, err := lookup(clientName)
	if err != nil {
		return "", err
	}
	return c.path(env, scope), nil
}

func (o Options) check() error {
	if o.Server == "" {
		return errors.New("--server is required")
	}
	if strings.ContainsAny(o.Server, ",\n\r") {
		return fmt.Errorf("server name %q: commas and newlines are not allowed", o.Server)
	}
	if o.Scope != User && o.Scope != Project {
		return fmt.Errorf("unknown scope %q", o.Scope)
	}
	if o.Approve.Timeout < 0 {
		return fmt.Errorf("approve timeout %s: must be positive", o.Approve.Timeout)
	}
	if o.Approve.Match != "" {
		if _, err := regexp.Compile(o.Approve.Match); err != nil {
			return fmt.Errorf("approve match %q: %w", o.Approve.Match, err)
		}
	}
	return nil
}

// checkBin refuses a binary the hooks (or the proxy entry) could not be
// known by again: uninstall and doctor know interceptor's own entries by
// the binary's name.
func checkBin(bin string) error {
	if !filepath.IsAbs(bin) {
		return fmt.Errorf("the binary path %q is not absolute", bin)
	}
	if !strings.HasPrefix(filepath.Base(bin), "interceptor") {
		return fmt.Errorf("the binary %q is not named interceptor…: uninstall and doctor would not know its entries as interceptor's; give it a name that starts with interceptor", bin)
	}
	return nil
}

// Install merges the server's hooks into the client's config.
func Install(env Env, o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := checkDeliver(o); err != nil {
		return nil, err
	}
	if err := checkBin(o.Bin); err != nil {
		return nil, err
	}
	c, desc, err := lookup(o.Client)
	if err != nil {
		return nil, err
	}
	if o.Approve.On && desc.NoApprove {
		why := "its hook timeout is not verified, and a hook it kills early would run the tool unapproved"
		if desc.NoApproveWhy != "" {
			why = desc.NoApproveWhy
		}
		return nil, fmt.Errorf("--approve is not supported for %s yet: %s", o.Client, why)
	}
	collide, notes := collisions(env, desc, o.Server)
	o.Hook.NotServers = collide
	p, paired := c.(pairedClient)
	if paired {
		// The second file is checked before the first is written: a refusal
		// there (the user's own Cline hook) leaves both alone.
		check := o
		check.DryRun = true
		if _, err := installFile(env, check, p.pair()); err != nil {
			return nil, err
		}
	}
	res, err := installFile(env, o, c)
	if paired && err == nil {
		var second *Result
		if second, err = installFile(env, o, p.pair()); err == nil {
			res.join(second, didVerb(o.DryRun, "wrote", "would write"))
		}
	}
	if err != nil {
		return res, err
	}
	res.Notes = append(notes, res.Notes...)
	if msg, none := NotConfigured(env, desc, o.Server); none {
		res.Notes = append(res.Notes, msg)
	} else if msg != "" {
		res.Warnings = append(res.Warnings, msg)
	} else if where := FoundWhere(env, desc, o.Server); where != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("%s has server %q in %s", desc.Display, o.Server, where))
	}
	if o.Hook.Redact && desc.RedactCaveat != "" {
		res.Notes = append(res.Notes, desc.RedactCaveat)
	}
	if o.Trust {
		tr, err := trustHooks(env, desc, res.Path, res.before, res.after, o)
		if err != nil {
			return res, err
		}
		if tr.Changed {
			res.Changed = true
			res.Diff += tr.Diff
			res.Notes = append(res.Notes, didVerb(o.DryRun, "recorded", "would record")+" the hooks as trusted in "+tr.Path)
		}
		return res, nil
	}
	if res.Changed && desc.TrustStep != "" {
		res.Trust = []string{fmt.Sprintf("%s skips new or changed hooks SILENTLY until you trust them: %s (interceptor doctor tells whether they are trusted)", desc.Display, desc.TrustStep)}
		if o.Scope == Project && desc.ProjectTrust {
			res.Trust = append(res.Trust, fmt.Sprintf("%s loads a project's hooks only when the project is trusted", desc.Display))
		}
	}
	return res, nil
}

// Uninstall removes the server's hooks from the client's config.
func Uninstall(env Env, o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	c, desc, err := lookup(o.Client)
	if err != nil {
		return nil, err
	}
	res, err := uninstallFile(env, o, c)
	if p, ok := c.(pairedClient); ok && err == nil {
		var second *Result
		if second, err = uninstallFile(env, o, p.pair()); err == nil {
			res.join(second, didVerb(o.DryRun, "changed", "would change"))
		}
	}
	if err == nil && res.Changed && desc.TrustRecord.Rel != "" {
		var tr *Result
		tr, err = untrustHooks(env, desc, trustKeys(desc, res.Path, res.before), trustKeys(desc, res.Path, res.after), o)
		if tr != nil && tr.Changed {
			res.Diff += tr.Diff
			res.Notes = append(res.Notes, didVerb(o.DryRun, "took", "would take")+" the hooks' trust records out of "+tr.Path)
			res.removed = append(res.removed, tr.removed...)
		}
	}
	if res != nil {
		removeEmptyDirs(env, desc, res.removed)
	}
	return res, err
}

// CreatedDirMarker names the empty file install leaves in each dir it
// creates for a config (~/.cursor, ~/.copilot/hooks): uninstall removes a
// dir only when it holds that mark and nothing else, so a dir the user had
// before install stays, empty or not.
const CreatedDirMarker = ".interceptor-created-dir"

// makeDirs makes dir and the parents missing, marking each one it made.
func makeDirs(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	for _, d := range missing {
		if err := os.WriteFile(filepath.Join(d, CreatedDirMarker), nil, 0o644); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	}
	return nil
}

// removeCreatedDir removes dir when install made it (its mark) and
// nothing else is in it; false when it stays.
func removeCreatedDir(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != CreatedDirMarker {
		return false
	}
	if os.Remove(filepath.Join(dir, CreatedDirMarker)) != nil {
		return false
	}
	if os.Remove(dir) != nil {
		os.WriteFile(filepath.Join(dir, CreatedDirMarker), nil, 0o644) // something came in meanwhile: keep the mark
		return false
	}
	return true
}

// removeEmptyDirs removes the dirs install made that removing files left
// empty, from each file's dir up, short of the home dir, the project dir
// and a dir a client's variable names (CODEX_HOME): a client's config dir
// install made for its file goes with it; one the user had stays.
func removeEmptyDirs(env Env, c *hooks.Client, files []string) {
	stops := []string{filepath.Clean(env.Home), filepath.Clean(env.Project)}
	for _, p := range []hooks.Path{c.User, c.Project, c.Local, c.TrustRecord} {
		if p.Root.Var != "" && env.Getenv != nil && env.Getenv(p.Root.Var) != "" {
			stops = append(stops, filepath.Clean(env.Dir(p.Root)))
		}
	}
	for _, f := range files {
		for dir := filepath.Dir(f); !slices.Contains(stops, dir) && filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
			if !removeCreatedDir(dir) {
				break
			}
		}
	}
}

// pairedClient is a client whose hooks take a second file (Cline: one
// executable per event): install and uninstall handle both.
type pairedClient interface {
	client
	pair() client
}

// executableClient is a client whose hook file is run itself (Cline's): a
// new one is written executable.
type executableClient interface {
	executable() bool
}

func installFile(env Env, o Options, c client) (*Result, error) {
	f, err := openConfig(c.path(env, o.Scope), !o.DryRun, !o.DryRun)
	if err != nil {
		return nil, err
	}
	defer f.unlock()
	if x, ok := c.(executableClient); ok && x.executable() && f.data == nil {
		f.mode = 0o755
	}
	res := &Result{Client: o.Client, Scope: o.Scope, Path: f.path, Created: f.data == nil}
	out, notes, err := c.merge(f.path, f.data, o)
	if err != nil {
		return nil, err
	}
	res.Notes = notes
	if f.data != nil && !bytes.Equal(out, f.data) {
		if was, err := c.unmerge(f.path, f.data, o.Server, false); err == nil && !bytes.Equal(was, f.data) {
			res.Replaced = true
		}
	}
	res.before, res.after = f.data, out
	return res, f.commit(res, out, o.DryRun, !c.installed(f.data))
}

// didVerb is done, or would when a dry run writes nothing.
func didVerb(dryRun bool, done, would string) string {
	if dryRun {
		return would
	}
	return done
}

// join adds what was done to a paired client's second file: Path stays
// the first file, a note names the second.
func (r *Result) join(second *Result, verb string) {
	if second.Changed && !r.Changed {
		r.Path, r.Where = second.Path, second.Where
	} else if second.Changed && second.Where != "" {
		r.Notes = append(r.Notes, verb+" the entry in "+second.Where+" too")
	} else if second.Changed {
		r.Notes = append(r.Notes, verb+" "+second.Path+" too")
	}
	r.Changed = r.Changed || second.Changed
	r.Created = r.Created && second.Created
	r.Removed = r.Removed && second.Removed
	r.Replaced = r.Replaced || second.Replaced
	r.Diff += second.Diff
	r.Notes = append(r.Notes, second.Notes...)
	r.removed = append(r.removed, second.removed...)
	if r.Backup == "" {
		r.Backup = second.Backup
	}
}

func uninstallFile(env Env, o Options, c client) (*Result, error) {
	f, err := openConfig(c.path(env, o.Scope), !o.DryRun, false)
	if err != nil {
		return nil, err
	}
	defer f.unlock()
	res := &Result{Client: o.Client, Scope: o.Scope, Path: f.path}
	if f.data == nil {
		return res, nil
	}
	created := !exists(f.path + BackupSuffix)
	out, err := c.unmerge(f.path, f.data, o.Server, created)
	if err != nil {
		return nil, err
	}
	res.before, res.after = f.data, out
	return res, f.commit(res, out, o.DryRun, false)
}

// collisions are the servers configured in the client whose tool names
// collide with server's, which its hooks must refuse, and a note saying so.
func collisions(env Env, c *hooks.Client, server string) ([]string, []string) {
	configured, problems := ConfiguredServers(env, c)
	var notes []string
	for _, p := range problems {
		notes = append(notes, "cannot read the MCP servers "+c.Display+" has configured ("+p+"): servers whose tool names look like "+server+"'s are not refused")
	}
	collide := c.Collisions(server, configured)
	if len(collide) > 0 {
		mine, _ := c.ToolPrefix(server)
		notes = append(notes, fmt.Sprintf("%s names the tools of %s like %q's (%s…): the hooks refuse their calls (--not-server), so no token of %q reaches them", c.Display, strings.Join(collide, ", "), server, mine, server))
	}
	return collide, notes
}

// configFile is a config read for editing, locked until unlock.
type configFile struct {
	path    string      // the real file (a symlinked config is edited where it points)
	data    []byte      // nil when it does not exist
	mode    fs.FileMode // kept on rewrite
	release func()      // lets the lock go (nil: not locked)
}

// LockSuffix names the lock file next to a config (".NAME" + LockSuffix)
// that install and uninstall hold across read-modify-write, so concurrent
// runs for different servers all keep their hooks. It goes with its last
// holder (privfs.LockRemoved): nothing of it stays beside the user's file.
const LockSuffix = ".interceptor-lock"

// lockWait is how long install waits for another install on the same file.
const lockWait = 30 * time.Second

// openConfig resolves a symlinked config to the file it points to (a link
// whose target is missing is refused: writing would replace the link),
// takes the file's lock when it is to be written (creating its dir first
// with mkdir; a dir that does not exist has no config to guard), and reads
// it.
func openConfig(path string, lock, mkdir bool) (*configFile, error) {
	f := &configFile{path: path, mode: 0o644}
	real, err := filepath.EvalSymlinks(path)
	switch {
	case err == nil:
		f.path = real
	case isLink(path):
		target, _ := os.Readlink(path)
		return nil, fmt.Errorf("%s is a symlink to %s, which does not exist (or loops): create it or remove the link, then run again", path, target)
	}
	dir := filepath.Dir(f.path)
	if mkdir {
		if err := makeDirs(dir); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(dir); err == nil && lock {
		if f.release, err = privfs.LockRemoved(filepath.Join(dir, "."+filepath.Base(f.path)+LockSuffix), "install", lockWait); err != nil {
			return nil, fmt.Errorf("%s: another interceptor install or uninstall holds it: %w", f.path, err)
		}
	}
	data, mode, err := privfs.ReadRegular(f.path, "config", MaxConfig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil && f.path != path:
		f.unlock()
		return nil, fmt.Errorf("%s links to %s: %w", path, f.path, err)
	case err != nil:
		f.unlock()
		return nil, err
	}
	f.data, f.mode = data, mode
	if f.data == nil {
		f.data = []byte{}
	}
	return f, nil
}

func (f *configFile) unlock() {
	if f.release != nil {
		f.release()
	}
}

func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// commit writes out (nil: remove the file). Before the first change of a
// file that existed and held nothing of install's (original), it takes a
// backup; once the file is back to it, the backup goes. A file install
// created has none, which is how uninstall knows to remove it when nothing
// else is left: a second server's install into it must not take one.
func (f *configFile) commit(res *Result, out []byte, dryRun, original bool) error {
	if f.data != nil && out != nil && bytes.Equal(out, f.data) {
		return nil
	}
	if f.data == nil && out == nil {
		return nil
	}
	res.Changed = true
	res.Removed = out == nil
	res.Diff = unifiedDiff(f.path, f.data, out)
	if dryRun {
		return nil
	}
	backup := f.path + BackupSuffix
	if original && f.data != nil && !exists(backup) {
		if err := writeNew(backup, f.data); err != nil {
			return err
		}
		res.Backup = backup
	}
	if out == nil {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		res.removed = append(res.removed, f.path)
		return nil
	}
	if err := writeAtomic(f.path, out, f.mode); err != nil {
		return err
	}
	if b, err := ReadConfig(backup); err == nil && bytes.Equal(b, out) {
		os.Remove(backup)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// writeNew writes a file that must not exist yet, private to the user (a
// settings file may hold API keys).
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("backup %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("backup %s: %w", path, err)
	}
	return nil
}

// writeAtomic replaces path with data through a temp file in the same
// dir, synced, so a reader (the client starting up) never sees a
// half-written config.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return privfs.WriteFile(path, "config", data, privfs.WriteOptions{Mode: mode, Sync: true, Temp: "." + filepath.Base(path) + ".interceptor-tmp-"})
}

func readFileIfExists(path string) ([]byte, error) {
	b, err := ReadConfig(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// DefaultBin is the running binary's absolute path, as hooks should call it.
// When `interceptor` on PATH is this same binary through a symlink (a
// package manager's bin dir), that stable path is used instead of the
// versioned file it points to. warning is set when the binary looks
// temporary (go run, a test binary).
func DefaultBin() (bin, warning string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("cannot find this binary's path (pass --bin): %w", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", "", err
	}
	bin = exe
	if p, err := exec.LookPath("interceptor"); err == nil {
		if p, err = filepath.Abs(p); err == nil && sameFile(p, exe) {
			bin = p
		}
	}
	tmp := os.TempDir()
	if strings.HasPrefix(bin, tmp+string(filepath.Separator)) || strings.Contains(bin, "go-build") {
		warning = fmt.Sprintf("this binary (%s) looks temporary (go run?); the hooks will call it there: pass --bin or install interceptor first", bin)
	}
	return bin, warning, nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// unifiedDiff renders the change from a to b (nil: no file) as a unified
// diff, for --dry-run.
func unifiedDiff(path string, a, b []byte) string {
	name := filepath.ToSlash(path)
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	from, to := "a"+name, "b"+name
	if a == nil {
		from = "/dev/null"
	}
	if b == nil {
		to = "/dev/null"
	}
	return string(diff.Diff(from, a, to, b))
}

package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hookrun"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/spf13/cobra"
)

// installFlags are the flags of install and uninstall.
type installFlags struct {
	server  string
	scope   string
	project string
	dryRun  bool
	bin     string
	hook    install.HookOptions
	approve install.ApproveOptions
	deliver bool
	trust   bool
	proxy   bool
}

// rewritesResult keeps the clients whose post-tool hook can rewrite what
// the model reads of a result, so capture --redact works.
func rewritesResult(c *hooks.Client) bool { return c.RewritesResult }

func (f *installFlags) register(cmd *cobra.Command, hookOptions bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.server, "server", "", "the token server's name as configured in the client (required)")
	fl.StringVar(&f.scope, "scope", "user", "user (your home's config) or project (the project dir's config)")
	fl.StringVar(&f.project, "project", "", "the project dir for --scope project (default: the current dir)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the change as a diff and write nothing")
	if !hookOptions {
		fl.BoolVar(&f.proxy, "proxy", false, "put back the server's entry in the client's MCP config as it was before install --proxy")
		return
	}
	fl.BoolVar(&f.proxy, "proxy", false, "instead of hooks, rewrite the server's entry in the client's own MCP config to run through interceptor proxy (a command) or interceptor-http proxy --url (a Streamable HTTP address); the hook options the proxy takes go with it")
	fl.StringVar(&f.bin, "bin", "", "the interceptor binary the hooks run: an absolute path whose name starts with interceptor (default: this binary's absolute path)")
	registerPassedOn(fl, &f.hook.Options)
	fl.Lookup("redact").Usage += " (" + displays(clientsWhere(rewritesResult)) + "; the others cannot rewrite what the model reads)"
	fl.StringVar(&f.hook.StateDir, "state-dir", "", "pass --state-dir to the hooks (made absolute)")
	fl.BoolVar(&f.deliver, "deliver", false, "install only the hooks that deliver the answers of --server's human tools (interceptor deliver; docs/human-tools.md)")
	fl.BoolVar(&f.approve.On, "approve", false, "also install an 'interceptor approve' hook in front of inject: the server's tool calls wait for a supervisor (docs/approvals.md)")
	fl.DurationVar(&f.approve.Timeout, "approve-timeout", 0, "with --approve: approve's --timeout (default 5m); the client's hook timeout is set 30s longer")
	fl.StringVar(&f.approve.Match, "approve-match", "", "with --approve: approve's --match REGEX on the client's tool names (default: the server's tools)")
	fl.BoolVar(&f.approve.Shell, "approve-shell", false, "with --approve: gate the client's shell tool too ("+shellTools()+"), so a child's own 'interceptor approvals allow' waits for the supervisor")
	fl.BoolVar(&f.trust, "trust", false, trustUsage())
}

// noEnv replaces the root's INTERCEPTOR_<FLAG> handling for install and
// uninstall: the hooks they write carry only what is on this command line,
// not what happens to be set in the shell.
func noEnv(*cobra.Command, []string) error { return nil }

func (f *installFlags) options(cmd *cobra.Command, client string) (install.Options, install.Env, error) {
	if f.server == "" {
		return install.Options{}, install.Env{}, errors.New("--server is required")
	}
	scope, err := install.ParseScope(f.scope)
	if err != nil {
		return install.Options{}, install.Env{}, err
	}
	if f.project != "" && scope != install.Project {
		return install.Options{}, install.Env{}, errors.New("--project needs --scope project")
	}
	env, err := install.EnvFromOS(f.project)
	if err != nil {
		return install.Options{}, install.Env{}, err
	}
	if !f.approve.On && (cmd.Flags().Changed("approve-timeout") || cmd.Flags().Changed("approve-match") || f.approve.Shell) {
		return install.Options{}, install.Env{}, errors.New("--approve-timeout, --approve-match and --approve-shell need --approve")
	}
	if cmd.Flags().Changed("approve-timeout") && f.approve.Timeout <= 0 {
		return install.Options{}, install.Env{}, errors.New("--approve-timeout must be positive")
	}
	if f.proxy {
		for _, name := range []string{"approve", "approve-timeout", "approve-match", "approve-shell", "deliver", "trust", "sessionless"} {
			if cmd.Flags().Changed(name) {
				return install.Options{}, install.Env{}, fmt.Errorf("--%s is a hook option; --proxy installs no hooks", name)
			}
		}
	}
	o := install.Options{Client: client, Scope: scope, Server: f.server, Bin: f.bin, Hook: f.hook, Approve: f.approve, DryRun: f.dryRun, Trust: f.trust, Deliver: f.deliver, Proxy: f.proxy}
	if err := checkHookOptions(cmd, &o.Hook, f.dryRun); err != nil {
		return install.Options{}, install.Env{}, err
	}
	if o.Hook.StateDir != "" {
		if o.Hook.StateDir, err = filepath.Abs(o.Hook.StateDir); err != nil {
			return install.Options{}, install.Env{}, err
		}
	}
	return o, env, nil
}

// checkHookOptions refuses, at install time, what every hook run would
// refuse (one stderr line per tool call, and nothing carried): a pattern
// that does not compile, a handles file that does not parse, --handles
// beside the flags it replaces. The handles file is pinned (pinHandles):
// hooks run in the client's working dir, long after, and the original may
// move.
func checkHookOptions(cmd *cobra.Command, h *install.HookOptions, dryRun bool) error {
	if h.MinLen < 0 {
		return errors.New("--min-token-length must be positive")
	}
	if _, err := token.CompilePattern(h.TokenPattern); err != nil {
		return err
	}
	if h.HandlesFile == "" {
		return nil
	}
	if err := h.CheckHandlesAlone(cmd.Flags().Changed); err != nil {
		return err
	}
	specs, err := carry.ReadHandles(h.HandlesFile) // as given: an error names it so
	if err != nil {
		return err
	}
	o := carry.Options{Servers: []string{"x"}, Handles: specs}
	if err := o.ValidateHooks(); err != nil {
		return err
	}
	pinned, err := pinHandles(h.HandlesFile, h.StateDir, dryRun)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: note: the hooks read a copy of %s (%s), so moving it breaks nothing: install again after you change it\n", progName(), h.HandlesFile, pinned)
	h.HandlesFile = pinned
	return nil
}

// pinHandles copies the handles file at path into the state dir
// (<state>/handles/<sha256 prefix>.json, private like the rest of it) and
// returns the copy's path, which the hooks read: moving, editing or
// deleting the original then breaks nothing (install again to change
// it). With dryRun it only names the copy.
func pinHandles(path, stateDir string, dryRun bool) (string, error) {
	data, _, err := privfs.ReadRegular(path, "handles file", token.MaxHandlesFile)
	if err != nil {
		return "", err
	}
	dir, err := hookrun.StateDir(stateDir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	pinned := filepath.Join(dir, "handles", hex.EncodeToString(sum[:8])+".json")
	if dryRun {
		return pinned, nil
	}
	if err := os.MkdirAll(filepath.Dir(pinned), 0o700); err != nil {
		return "", err
	}
	if err := privfs.WriteFile(pinned, "handles file copy", data, privfs.WriteOptions{Mode: 0o600, Sync: true}); err != nil {
		return "", fmt.Errorf("pinning --handles %s: %w", path, err)
	}
	return pinned, nil
}

func clientArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("name one client: %s", strings.Join(install.Clients(), ", "))
	}
	for _, c := range install.Clients() {
		if args[0] == c {
			return nil
		}
	}
	return fmt.Errorf("unknown client %q: use one of %s", args[0], strings.Join(install.Clients(), ", "))
}

// installRun is one install or uninstall: the options its flags and its
// client argument make, and the environment they resolve against.
type installRun struct {
	IO   *IO
	Opts install.Options
	Env  install.Env
}

// newInstallCmd is install, which runF runs (runInstall; a test's own to
// see the options without touching a config).
func newInstallCmd(io *IO, runF func(*installRun) error) *cobra.Command {
	cmd := newInstallCmdOf(io, runF, true)
	cmd.Use = "install CLIENT --server NAME [flags]"
	cmd.Short = "Wire the hooks into a client's config (" + clientNames(clientsWhere(all), ", ") + ")"
	cmd.Long = installIntro()
	cmd.Example = installExample()
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { fmt.Fprint(c.OutOrStdout(), installHelp(c)) })
	return cmd
}

// newUninstallCmd is uninstall, which runF runs (runUninstall).
func newUninstallCmd(io *IO, runF func(*installRun) error) *cobra.Command {
	cmd := newInstallCmdOf(io, runF, false)
	a := &allFlags{}
	a.register(cmd)
	cmd.Args = uninstallArgs(a)
	one := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if !a.all && !a.purge {
			return one(cmd, args)
		}
		for _, name := range []string{"server", "scope", "proxy"} {
			if cmd.Flags().Changed(name) {
				return fmt.Errorf("--%s names one server; --all and --purge cover every one", name)
			}
		}
		project, _ := cmd.Flags().GetString("project")
		dryRun, _ := cmd.Flags().GetBool("dry-run")
		return runUninstallAll(io, a, project, dryRun)
	}
	cmd.Use = "uninstall (CLIENT --server NAME [--scope user|project] | --all [--purge]) [--dry-run]"
	cmd.Short = "Take the server's hooks out of a client's config"
	cmd.Long = `Removes the interceptor hooks for one server from the client's config (the
same files as install), and the lists and objects that leaves empty. A
file install created goes when nothing else is left in it, and so does a
dir that leaves empty; the backup goes once the file is back to it byte
for byte; the trust records install --trust wrote for the hooks go with
them. Other hooks and settings are left exactly as they are: install then
uninstall gives back every byte.

--all takes out everything interceptor wired, in every client: every
server's hooks at user scope and at the project scope of the current dir
(or --project), and every entry install --proxy rewrote, wherever it is.
--purge removes the state dir too. With --dry-run both only say what they
would do.`
	cmd.Example = "  interceptor uninstall " + hooks.ClaudeCodeClient.Name + " --server wf\n  interceptor uninstall --all --purge --dry-run   # what removing everything would do\n  interceptor uninstall --all --purge"
	return cmd
}

// newInstallCmdOf is what install and uninstall share: the client
// argument, the flags (the hook options with hookOptions) and their
// reading into an installRun.
func newInstallCmdOf(io *IO, runF func(*installRun) error, hookOptions bool) *cobra.Command {
	f := &installFlags{}
	cmd := &cobra.Command{
		Args:              clientArg,
		ValidArgs:         install.Clients(),
		PersistentPreRunE: noEnv,
		RunE: func(cmd *cobra.Command, args []string) error {
			o, env, err := f.options(cmd, args[0])
			if err != nil {
				return err
			}
			return runF(&installRun{IO: io, Opts: o, Env: env})
		},
	}
	f.register(cmd, hookOptions)
	return cmd
}

// runInstall installs the hooks, calling this binary unless --bin names
// another, and reports what it did.
func runInstall(r *installRun) error {
	o, io := r.Opts, r.IO
	if o.Bin == "" {
		bin, warning, err := install.DefaultBin()
		if err != nil {
			return err
		}
		o.Bin = bin
		if warning != "" {
			fmt.Fprintf(io.Err, "%s: warning: %s\n", progName(), warning)
		}
	} else {
		bin, err := filepath.Abs(o.Bin)
		if err != nil {
			return err
		}
		o.Bin = bin
	}
	hookBin, warning := install.HookBin(o.Bin)
	if warning != "" {
		fmt.Fprintf(io.Err, "%s: warning: %s\n", progName(), warning)
	}
	o.HookBin = hookBin
	if fi, err := os.Stat(o.Bin); err != nil || fi.IsDir() {
		fails := "the hooks will fail"
		if o.Proxy {
			fails = "the client cannot start the server"
		}
		fmt.Fprintf(io.Err, "%s: warning: %s does not exist (yet); %s until it does\n", progName(), o.Bin, fails)
	}
	if o.Proxy {
		if o.Hook.Redact {
			fmt.Fprintf(io.Err, "%s: note: --redact: the proxy always shows the model stand-ins, never the token\n", progName())
		}
		res, err := install.InstallProxy(r.Env, o)
		if err != nil {
			return err
		}
		report(io, res, o, "install")
		return nil
	}
	if o.Hook.StateDir == "" && os.Getenv("INTERCEPTOR_STATE_DIR") != "" {
		fmt.Fprintf(io.Err, "%s: note: INTERCEPTOR_STATE_DIR is set here, but the hooks see it only if the client inherits it; pass --state-dir to write it into them\n", progName())
	}
	res, err := install.Install(r.Env, o)
	if err != nil {
		return err
	}
	report(io, res, o, "install")
	return nil
}

// runUninstall takes the server's hooks out and reports what it did.
func runUninstall(r *installRun) error {
	if r.Opts.Proxy {
		res, err := install.UninstallProxy(r.Env, r.Opts)
		if err != nil {
			return err
		}
		report(r.IO, res, r.Opts, "uninstall")
		return nil
	}
	res, err := install.Uninstall(r.Env, r.Opts)
	if err != nil {
		return err
	}
	report(r.IO, res, r.Opts, "uninstall")
	if !res.Changed {
		if c, ok := hooks.FindClient(r.Opts.Client); ok {
			servers, _ := install.MCPServers(r.Env, c)
			for _, s := range servers {
				if _, proxied := install.ProxyArgv(s.Command, s.Args); proxied && s.Name == r.Opts.Server {
					fmt.Fprintf(r.IO.Err, "%s: note: server %q in %s runs through the proxy: uninstall --proxy puts it back\n", progName(), s.Name, s.Path)
					break
				}
			}
		}
	}
	return nil
}

// proxyOutcome says what install or uninstall --proxy did to the entry.
func proxyOutcome(res *install.Result, verb string) string {
	switch {
	case !res.Changed && verb == "install":
		return "already runs through the proxy; nothing to change"
	case !res.Changed:
		return "does not run through the proxy; nothing to change"
	case verb == "install":
		return "now runs through the proxy (as it was: " + res.Path + install.ProxyRecordSuffix + ")"
	}
	return "is back as it was"
}

// report prints what install or uninstall did (describe) and, for a dry
// run that would have changed the file, that it wrote nothing.
func report(io *IO, res *install.Result, o install.Options, verb string) {
	describe(io, res, o, verb)
	if res.Changed && o.DryRun {
		fmt.Fprintf(io.Err, "%s: dry run: nothing written\n", progName())
	}
}

// describe prints what install or uninstall did: the diff with --dry-run,
// else one line; notes and warnings go to stderr. uninstall --all
// describes each file and says once, at the end, that a dry run wrote
// nothing.
func describe(io *IO, res *install.Result, o install.Options, verb string) {
	what := fmt.Sprintf("%s (%s scope)", res.Client, res.Scope)
	for _, n := range res.Notes {
		fmt.Fprintf(io.Err, "%s: note: %s\n", progName(), n)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(io.Err, "%s: warning: %s\n", progName(), w)
	}
	switch {
	case res.Changed && o.DryRun:
		fmt.Fprint(io.Out, res.Diff)
	case o.Proxy:
		where := res.Path
		if res.Where != "" {
			where = res.Where
		}
		fmt.Fprintf(io.Out, "%s: server %q (%s) %s\n", res.Client, o.Server, where, proxyOutcome(res, verb))
	case !res.Changed && verb == "install":
		fmt.Fprintf(io.Out, "%s: %s already has the hooks for server %q; nothing to change\n", what, res.Path, o.Server)
	case !res.Changed:
		fmt.Fprintf(io.Out, "%s: %s has no hooks for server %q; nothing to change\n", what, res.Path, o.Server)
	case verb == "install":
		msg := fmt.Sprintf("%s: added the hooks for server %q to %s", what, o.Server, res.Path)
		if res.Replaced {
			msg = fmt.Sprintf("%s: replaced the hooks for server %q in %s with these options", what, o.Server, res.Path)
		}
		if res.Created {
			msg = fmt.Sprintf("%s: wrote %s with the hooks for server %q", what, res.Path, o.Server)
		}
		if res.Backup != "" {
			msg += " (backup: " + res.Backup + ")"
		}
		fmt.Fprintln(io.Out, msg)
	case res.Removed:
		fmt.Fprintf(io.Out, "%s: removed %s (install had created it, nothing else was in it)\n", what, res.Path)
	default:
		fmt.Fprintf(io.Out, "%s: removed the hooks for server %q from %s\n", what, o.Server, res.Path)
	}
	if len(res.Trust) > 0 {
		fmt.Fprintln(io.Err)
		for _, t := range res.Trust {
			fmt.Fprintf(io.Err, "%s: IMPORTANT: %s.\n", progName(), t)
		}
		fmt.Fprintln(io.Err)
	}
}

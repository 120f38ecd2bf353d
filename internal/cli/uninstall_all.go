package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hookrun"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/spf13/cobra"
)

// allFlags are uninstall's flags that remove everything: --all (every
// server interceptor wired, in every client), --purge (the state dir).
type allFlags struct {
	all, purge bool
	stateDir   string
}

func (a *allFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&a.all, "all", false, "take out everything interceptor wired, in every client: each server's hooks (user and project scope) and each entry install --proxy rewrote; no CLIENT or --server")
	fl.BoolVar(&a.purge, "purge", false, "remove the state dir too (held tokens, approvals, children, the inbox's key)")
	fl.StringVar(&a.stateDir, "state-dir", "", "with --purge: the state dir to remove (default: $INTERCEPTOR_STATE_DIR, else the usual one)")
}

// uninstallArgs lets --all and --purge go without a client.
func uninstallArgs(a *allFlags) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if a.all || a.purge {
			if len(args) > 0 {
				return errors.New("--all and --purge take no client: they cover every client")
			}
			return nil
		}
		return clientArg(cmd, args)
	}
}

// runUninstallAll is uninstall --all and/or --purge. A dry run says it
// wrote nothing once, at the end, not once per file.
func runUninstallAll(io *IO, a *allFlags, project string, dryRun bool) error {
	err := uninstallAll(io, a, project, dryRun)
	if err == nil && dryRun {
		fmt.Fprintf(io.Err, "%s: dry run: nothing written\n", progName())
	}
	return err
}

func uninstallAll(io *IO, a *allFlags, project string, dryRun bool) error {
	if a.all {
		env, err := install.EnvFromOS(project)
		if err != nil {
			return err
		}
		n := 0
		for _, c := range hooks.ByName() {
			for _, w := range install.Wired(env, c) {
				n++
				if dryRun {
					what := fmt.Sprintf("hooks (%s scope, %s)", w.Scope, w.Where)
					if w.Proxy {
						what = "entry through the proxy (" + w.Where + ")"
					}
					fmt.Fprintf(io.Out, "# would take out %s: server %q: %s\n", c.Name, w.Server, what)
				}
				o := install.Options{Client: c.Name, Scope: w.Scope, Server: w.Server, DryRun: dryRun, Proxy: w.Proxy}
				var res *install.Result
				if w.Proxy {
					res, err = install.UninstallProxy(env, o)
				} else {
					res, err = install.Uninstall(env, o)
				}
				if err != nil {
					return fmt.Errorf("%s, server %q: %w", c.Name, w.Server, err)
				}
				describe(io, res, o, "uninstall")
			}
		}
		if n == 0 {
			fmt.Fprintln(io.Out, "interceptor is wired into no client (user scope, and project scope of "+env.Project+")")
		}
	}
	if a.purge {
		return purgeStateDir(io, a.stateDir, dryRun)
	}
	return nil
}

// purgeStateDir removes the state dir, refusing a dir that holds the home
// dir (a mistyped --state-dir).
func purgeStateDir(io *IO, dir string, dryRun bool) error {
	d, err := hookrun.StateDir(dir)
	if err != nil {
		return err
	}
	d = filepath.Clean(d)
	if home, err := os.UserHomeDir(); err == nil {
		if rel, err := filepath.Rel(d, filepath.Clean(home)); err == nil && !strings.HasPrefix(rel, "..") {
			return fmt.Errorf("--purge: the state dir %s holds your home dir; not removing it", d)
		}
	}
	if _, err := os.Lstat(d); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(io.Out, "state dir %s does not exist; nothing to remove\n", d)
		return nil
	}
	if dryRun {
		fmt.Fprintf(io.Out, "would remove the state dir %s\n", d)
		return nil
	}
	if err := os.RemoveAll(d); err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "removed the state dir %s\n", d)
	return nil
}

package cli

import (
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hookrun"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/spf13/cobra"
)

// stateDirFlag is the --state-dir flag of every command that keeps or reads
// state: registered here, resolved here, and the token store and approval
// queue opened from it.
type stateDirFlag struct{ dir string }

// register adds --state-dir to cmd; holds says what the dir holds for it.
func (f *stateDirFlag) register(cmd *cobra.Command, holds string) {
	stateDirVar(cmd, &f.dir, holds)
}

// stateDirVar adds --state-dir to cmd, set in p.
func stateDirVar(cmd *cobra.Command, p *string, holds string) {
	cmd.Flags().StringVar(p, "state-dir", "", holds+" (default $XDG_STATE_HOME/interceptor, else ~/.local/state/interceptor)")
}

// resolve is the state dir: the flag's, absolute, else the default.
func (f *stateDirFlag) resolve() (string, error) { return hookrun.StateDir(f.dir) }

// store opens the token store.
func (f *stateDirFlag) store() (*state.Store, error) { return hookrun.OpenStore(f.dir) }

// queue opens the approval queue.
func (f *stateDirFlag) queue() (*approvals.Store, error) {
	dir, err := f.resolve()
	if err != nil {
		return nil, err
	}
	return approvals.New(dir), nil
}

package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// parseAge reads an age such as 7d, 2w, 36h, 90m or any Go duration.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			f, err := strconv.ParseFloat(n, 64)
			if err != nil || f < 0 {
				return 0, fmt.Errorf("bad age %q: use e.g. 7d, 2w, 36h, 90m", s)
			}
			return time.Duration(f * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad age %q: use e.g. 7d, 2w, 36h, 90m", s)
	}
	return d, nil
}

func newGCCmd(io *IO) *cobra.Command {
	var olderThan string
	var stateDir stateDirFlag
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "gc [--older-than 7d] [--dry-run]",
		Short: "Remove stale session tokens",
		Long: `Removes the session tokens stored more than --older-than ago (default 7d),
for every server, and temp files a killed process left behind. Each
server's current token stays. Sessions normally end with the client's
session-end hook (clear); gc catches the ones that never did.`,
		Example: `  interceptor gc --older-than 7d
  interceptor gc --older-than 36h --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			age, err := parseAge(olderThan)
			if err != nil {
				return err
			}
			st, err := stateDir.store()
			if err != nil {
				return err
			}
			res, err := st.GC(age, time.Now(), dryRun)
			verb := "removed"
			if dryRun {
				verb = "would remove"
				for _, p := range append(res.Sessions, res.Temps...) {
					fmt.Fprintln(io.Out, p)
				}
			}
			fmt.Fprintf(io.Out, "%s %d session token(s) older than %s and %d leftover temp file(s) from %s\n",
				verb, len(res.Sessions), olderThan, len(res.Temps), st.Dir)
			return err
		},
	}
	stateDir.register(cmd, "where tokens are kept")
	cmd.Flags().StringVar(&olderThan, "older-than", "7d", "remove session tokens older than this (e.g. 7d, 2w, 36h)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be removed and remove nothing")
	return cmd
}

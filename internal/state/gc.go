package state

import (
	"errors"
	"fmt"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempGrace is how old a leftover temp file must be before GC removes it.
// A writer holds its temp file for well under the hooks' 5 s deadline, so
// older ones are debris of a killed process.
const TempGrace = 10 * time.Minute

// GCResult lists what GC removed (or, in a dry run, would remove).
type GCResult struct {
	Sessions []string // session token files
	Temps    []string // leftover temp files
}

// GC removes the session tokens stored before now-olderThan, in every
// server's dir, and leftover temp files older than TempGrace. A server's
// current token stays: there is one per server, and events without a
// session need it.
//
// The dir is read without a lock; each old file is then removed under its
// session's lock, in batches (inBatches), after its age is checked again: a
// token a capture stored meanwhile is a new file, and stays. A capture
// never waits for more than one batch, and never loses its token to gc.
// Unsafe dirs are refused, as everywhere else.
func (s *Store) GC(olderThan time.Duration, now time.Time, dryRun bool) (GCResult, error) {
	var res GCResult
	if olderThan < 0 {
		return res, errors.New("gc: the age must not be negative")
	}
	if err := privfs.CheckDir(s.Dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return res, nil
		}
		return res, err
	}
	keys, err := s.Servers()
	if err != nil {
		return res, err
	}
	cutoff := now.Add(-olderThan)
	var errs []error
	for _, k := range keys {
		dir := filepath.Join(s.Dir, tokensDir, k)
		if err := privfs.CheckDir(dir); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("state dir %s: %w", dir, err))
			continue
		}
		var stale []string
		for _, e := range entries {
			name := e.Name()
			isTemp := strings.HasPrefix(name, tempPrefix)
			isSession := name != currentFile && isTokenFile(name)
			if !isTemp && !isSession {
				continue
			}
			path := filepath.Join(dir, name)
			fi, err := os.Lstat(path)
			switch {
			case err != nil:
				// gone meanwhile
			case isTemp && now.Sub(fi.ModTime()) > TempGrace:
				// A temp file is its writer's alone, and a writer holds it
				// for well under TempGrace: no lock to take.
				res.Temps = append(res.Temps, path)
				if !dryRun {
					if err := removeFile(path); err != nil {
						errs = append(errs, err)
					}
				}
			case isSession && fi.ModTime().Before(cutoff):
				stale = append(stale, name)
			}
		}
		if dryRun {
			for _, n := range stale {
				res.Sessions = append(res.Sessions, filepath.Join(dir, n))
			}
			continue
		}
		err = s.inBatches(dir, stale, func(name string) error {
			path := filepath.Join(dir, name)
			fi, err := os.Lstat(path)
			if err != nil || !fi.ModTime().Before(cutoff) {
				return nil // gone, or stored again since the dir was read
			}
			if err := removeFile(path); err != nil {
				return err
			}
			res.Sessions = append(res.Sessions, path)
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

//go:build e2e

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// cachedInstall returns the cache directory for what pkgs name (the
// directory name is prefix and a hash of pkgs), filling it once: install
// writes into a fresh temp directory, check verifies a directory (the
// cached one before it is used, the temp one before it is kept), and the
// temp directory is renamed into place whole. A run that finds another run
// (a second e2e run on the machine) put a complete copy in place first uses
// that one.
func cachedInstall(prefix string, pkgs []string, install, check func(dir string) error) (string, error) {
	cache := os.Getenv("E2E_CLIENT_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "interceptor-e2e-cache")
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache", "interceptor-e2e")
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(pkgs, "\n")))
	dir := filepath.Join(cache, prefix+"-"+hex.EncodeToString(sum[:6]))
	usable := func() bool {
		_, err := os.Stat(filepath.Join(dir, ".complete"))
		return err == nil && check(dir) == nil
	}
	if usable() {
		fmt.Fprintf(os.Stderr, "e2e: using cached %s in %s\n", prefix, dir)
		return dir, nil
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "e2e: installing %s into %s\n", strings.Join(pkgs, " "), dir)
	tmp := dir + fmt.Sprintf(".tmp-%d", os.Getpid())
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	if err := install(tmp); err != nil {
		return "", err
	}
	if err := check(tmp); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(strings.Join(pkgs, "\n")+"\n"), 0o644); err != nil {
		return "", err
	}
	if usable() {
		return dir, nil // another run finished first
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		if errors.Is(err, fs.ErrExist) && usable() {
			return dir, nil
		}
		return "", err
	}
	fmt.Fprintf(os.Stderr, "e2e: installed %s in %s\n", prefix, time.Since(start).Round(time.Second))
	return dir, nil
}

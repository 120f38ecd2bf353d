package inbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
)

// The page's key K (256 random bits) lives in <state dir>/inbox/key, a
// private file (0600 in a 0700 dir, owned by the user, no symlink), made
// on the first start and read again on each later one: a tab that holds K
// reconnects to a restarted inbox. Options.NewKey replaces it, so tabs
// that hold the old one stop working. The printed URL carries K in its
// fragment, which a browser never sends to any server (auth.go).

// keyBytes is the length of the key, the nonces and the session tokens.
const keyBytes = 32

// keyPath is the key file of the state dir.
func keyPath(stateDir string) string { return filepath.Join(stateDir, "inbox", "key") }

// loadKey reads the key file, making it first when it is missing or when
// rotate says so. Two inboxes starting at once on one state dir agree on
// one key (a lock around the read and the write).
func loadKey(stateDir string, rotate bool) ([]byte, error) {
	dir := filepath.Dir(keyPath(stateDir))
	for _, d := range []string{stateDir, dir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("inbox: creating %s: %w", d, err)
		}
		if err := privfs.CheckDir(d); err != nil {
			return nil, fmt.Errorf("inbox: %w", err)
		}
	}
	var key []byte
	err := privfs.Locked(filepath.Join(dir, "key.lock"), "inbox key", 5*time.Second, func() error {
		var err error
		if !rotate {
			key, err = readKey(keyPath(stateDir))
			if err == nil || !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		key = make([]byte, keyBytes)
		if _, err := rand.Read(key); err != nil {
			return fmt.Errorf("making the page's key: %w", err)
		}
		return privfs.WriteFile(keyPath(stateDir), "inbox key file", []byte(hex.EncodeToString(key)+"\n"),
			privfs.WriteOptions{Mode: 0o600, Sync: true})
	})
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	return key, nil
}

// readKey reads and checks a key file: private, 64 hex digits.
func readKey(path string) ([]byte, error) {
	b, err := privfs.ReadFile(path, "inbox key file", 1024)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != keyBytes {
		return nil, fmt.Errorf("inbox key file %s is not %d hex digits; start with --new-key to make a new one", path, 2*keyBytes)
	}
	return key, nil
}

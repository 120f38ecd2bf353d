package privfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// Locked runs fn holding an exclusive flock on the private lock file path
// (created 0600 if missing, checked by CheckLockFile), waiting at most
// timeout for another holder; what names the lock in the error.
func Locked(path, what string, timeout time.Duration, fn func() error) error {
	if err := CheckLockFile(path); err != nil {
		return err
	}
	lk := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ok, err := lk.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil || !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%s lock %s held by another process for over %s", what, path, timeout)
		}
		return err
	}
	defer lk.Unlock()
	return fn()
}

package privfs

import (
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// Locked runs fn holding an exclusive flock on the private lock file path
// (Lock).
func Locked(path, what string, timeout time.Duration, fn func() error) error {
	unlock, err := Lock(path, what, timeout)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// Lock takes an exclusive flock on the lock file path (created 0600 if
// missing, checked by CheckLockFile), waiting at most timeout for another
// holder; what names the lock in the error. unlock lets it go. The kernel
// lets a lock go with its holder, so a dead holder's lock is free.
//
// It waits in a blocking flock, which the kernel hands to waiters in turn,
// rather than polling, which can starve one waiter among many (64 hooks on
// two cores: a poller that wakes while the lock is briefly free between two
// others' holds keeps losing). A wait that times out is abandoned in its
// goroutine, which lets the lock go if it gets it later.
func Lock(path, what string, timeout time.Duration) (unlock func(), err error) {
	lk, err := lock(path, what, timeout, false)
	if err != nil {
		return nil, err
	}
	return func() { lk.Unlock() }, nil
}

// LockRemoved is Lock for a lock file that must not outlive its holders
// (one beside a user's config): unlock removes it, then lets the lock go.
// A waiter that was handed the lock of a file removed meanwhile sees that
// the path no longer names the file it locked, and starts over on the new
// one, so two holders never hold two files of the same name at once.
// Where the system refuses to remove an open file (Windows), it stays.
func LockRemoved(path, what string, timeout time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(timeout)
	for {
		lk, err := lock(path, what, time.Until(deadline), false)
		if err != nil {
			return nil, err
		}
		held, herr := lk.Stat()
		now, nerr := os.Lstat(path)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			return func() {
				os.Remove(path)
				lk.Unlock()
			}, nil
		}
		lk.Unlock()
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s lock %s: still held by another process after %s", what, path, timeout)
		}
	}
}

// LockShared is Lock for a shared flock: it waits only for an exclusive
// holder (Lock), and holders of shared ones never wait for each other. For
// many writers that exclude one another by finer locks but must all keep
// out a writer that takes the whole (an earlier version, a migration).
func LockShared(path, what string, timeout time.Duration) (unlock func(), err error) {
	lk, err := lock(path, what, timeout, true)
	if err != nil {
		return nil, err
	}
	return func() { lk.Unlock() }, nil
}

// lock takes the exclusive flock of Lock, or the shared one of LockShared.
func lock(path, what string, timeout time.Duration, shared bool) (*flock.Flock, error) {
	if err := CheckLockFile(path); err != nil {
		return nil, err
	}
	lk := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	acquired := make(chan error, 1)
	go func() {
		if shared {
			acquired <- lk.RLock()
			return
		}
		acquired <- lk.Lock()
	}()
	timer := time.NewTimer(max(timeout, 0))
	defer timer.Stop()
	select {
	case err := <-acquired:
		if err != nil {
			return nil, fmt.Errorf("%s lock %s: %w", what, path, err)
		}
	case <-timer.C:
		go func() {
			if <-acquired == nil {
				lk.Unlock()
			}
		}()
		return nil, fmt.Errorf("%s lock %s: still held by another process after %s", what, path, timeout)
	}
	return lk, nil
}

// TryLock takes the exclusive flock on the lock file path (created 0600 if
// missing, checked by CheckLockFile) now or not at all: ok is false, with
// no error, when another holds it. For an owner that must be the only one
// (a chat's runner) and keeps the lock while it lives: its holding says it
// is alive (Held).
//
// Held probes by taking a shared lock for an instant, so a try that meets
// one is made again for up to probeWindow before it counts as held: a
// runner starting while a poll asks whether it is alive must not take the
// poll for another runner.
func TryLock(path, what string) (unlock func(), ok bool, err error) {
	if err := CheckLockFile(path); err != nil {
		return nil, false, err
	}
	lk := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	deadline := time.Now().Add(probeWindow)
	for {
		ok, err = lk.TryLock()
		if err != nil {
			return nil, false, fmt.Errorf("%s lock %s: %w", what, path, err)
		}
		if ok {
			return func() { lk.Unlock() }, true, nil
		}
		if time.Now().After(deadline) {
			return nil, false, nil
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// probeWindow is how long TryLock waits out a lock that may be Held's
// instant probe; a real holder keeps it far longer.
const probeWindow = 100 * time.Millisecond

// Held reports whether someone holds the lock file path (Lock, TryLock). A
// missing file, or one that cannot be opened, is not held. It only reads:
// the file is opened read-only, never created and never followed, because
// closing a file opened for writing wakes every watch on its dir
// (IN_CLOSE_WRITE), and a waiter that asks on each wake would wake itself.
func Held(path string) bool {
	if _, err := os.Lstat(path); err != nil {
		return false
	}
	lk := flock.New(path, flock.SetFlag(os.O_RDONLY|noFollow))
	free, err := lk.TryRLock()
	if err != nil {
		return false
	}
	if free {
		lk.Unlock()
	}
	return !free
}

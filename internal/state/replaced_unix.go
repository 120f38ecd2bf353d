//go:build unix

package state

import (
	"os"
	"path/filepath"

	"github.com/interceptor-dev/interceptor/internal/privfs"
)

// openReplaced opens the files of dir that a writer is about to rename
// over; it is called under their locks. A rename over a file drops that
// file's last link, and with nobody holding it open the kernel frees it
// inside the rename: on ext4 a journaled truncate that waits on a busy
// disk (a few ms at the median, over 100 ms at p99 with the machine
// loaded), while every other writer of the server queues for current's
// lock. Held open, the old file is freed when the writer closes it, after
// the locks are let go. A file that cannot be opened is simply not held.
func openReplaced(dir string, names []string) []*os.File {
	var held []*os.File
	for _, n := range names {
		// OpenFile: no symlink followed, no FIFO blocked on.
		if f, err := privfs.OpenFile(filepath.Join(dir, n), "token file"); err == nil {
			held = append(held, f)
		}
	}
	return held
}

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/spf13/cobra"
)

// A serving inbox announces itself in <state dir>/inbox/running/: PORT.lock,
// which it holds (flock) while it serves, and PORT.json, its URL with the
// page's key and its pid (0600, like inbox/key, which holds the same key).
// The lock, not the file, says it is alive: a killed inbox leaves the file
// and frees the lock. `inbox url` prints the URL again from there, and a
// second inbox on a busy port says whether this state dir's inbox holds
// it. The key is only ever printed to stdout or read from a private file,
// never put on a command line (ps shows those to every local user).

// inboxRunning is one serving inbox as it announced itself.
type inboxRunning struct {
	URL string `json:"url"` // with #key=
	PID int    `json:"pid"`
}

// link is the URL without its key.
func (r inboxRunning) link() string { return strings.SplitN(r.URL, "#", 2)[0] }

func inboxRunningDir(stateDir string) string { return filepath.Join(stateDir, "inbox", "running") }

// AnnounceInbox records that this process serves the inbox of stateDir at
// addr (the listener's address) with url (the page's URL, key included);
// release, called when it stops serving, removes the record.
func AnnounceInbox(stateDir string, addr net.Addr, url string) (release func(), err error) {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return func() {}, nil
	}
	dir := inboxRunningDir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("inbox: creating %s: %w", dir, err)
	}
	if err := privfs.CheckDir(dir); err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	base := filepath.Join(dir, fmt.Sprint(ta.Port))
	unlock, ok, err := privfs.TryLock(base+".lock", "running inbox")
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	if !ok {
		// Another inbox of this state dir serves this port on another
		// address: it keeps the record.
		return func() {}, nil
	}
	b, _ := json.Marshal(inboxRunning{URL: url, PID: os.Getpid()})
	if err := privfs.WriteFile(base+".json", "running inbox file", append(b, '\n'), privfs.WriteOptions{Mode: 0o600}); err != nil {
		unlock()
		return nil, fmt.Errorf("inbox: %w", err)
	}
	return func() {
		os.Remove(base + ".json")
		os.Remove(base + ".lock")
		unlock()
	}, nil
}

// runningInboxes are the inboxes serving stateDir now, by port; a record
// whose lock nobody holds (an inbox killed) is left out.
func runningInboxes(stateDir string) (map[string]inboxRunning, error) {
	dir := inboxRunningDir(stateDir)
	locks, err := filepath.Glob(filepath.Join(dir, "*.lock"))
	if err != nil {
		return nil, err
	}
	out := map[string]inboxRunning{}
	for _, l := range locks {
		if !privfs.Held(l) {
			continue
		}
		port := strings.TrimSuffix(filepath.Base(l), ".lock")
		b, err := privfs.ReadFile(filepath.Join(dir, port+".json"), "running inbox file", 8<<10)
		if errors.Is(err, os.ErrNotExist) {
			continue // starting: the lock comes before the file
		}
		if err != nil {
			return nil, err
		}
		var r inboxRunning
		if err := json.Unmarshal(b, &r); err != nil || r.URL == "" {
			return nil, fmt.Errorf("running inbox file %s is not what an inbox writes", filepath.Join(dir, port+".json"))
		}
		out[port] = r
	}
	return out, nil
}

// BusyPort is err, from listening on listen for the inbox of stateDir, as
// one line that names the port, who holds it when this state dir's own
// inbox does (its address, not its key), and what to do. Other errors are
// returned as they are.
func BusyPort(stateDir, listen string, err error) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	host, port, serr := net.SplitHostPort(listen)
	if serr != nil {
		return err
	}
	if host == "" {
		host = "127.0.0.1"
	}
	free := "--listen " + net.JoinHostPort(host, "0")
	running, rerr := runningInboxes(stateDir)
	if r, ok := running[port]; ok && rerr == nil {
		return fmt.Errorf("inbox: port %s is taken by this state dir's inbox (pid %d, %s): open that one (interceptor inbox url prints its address with the key), or serve another on any free port with %s",
			port, r.PID, r.link(), free)
	}
	return fmt.Errorf("inbox: port %s on %s is taken by another program (or the inbox of another state dir): serve on any free port with %s, or name a free one", port, host, free)
}

// newInboxURLCmd is inbox url: the running inboxes' URLs again.
func newInboxURLCmd(io *IO) *cobra.Command {
	var sd stateDirFlag
	cmd := &cobra.Command{
		Use:   "url",
		Short: "Print the running inbox's URL again (with its key: keep it to yourself)",
		Long: `Prints the URL of each inbox serving this state dir, as it printed it at
start: the page's address with its key after '#'. It reads it from the
state dir (inbox/running/, private files the inbox writes and removes when
it stops), so the key never goes on a command line. Exits 1 when no inbox
serves this state dir.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			dir, err := sd.resolve()
			if err != nil {
				return err
			}
			running, err := runningInboxes(dir)
			if err != nil {
				return err
			}
			if len(running) == 0 {
				return fmt.Errorf("inbox url: no inbox is serving the state dir %s; start one: interceptor-http inbox", dir)
			}
			ports := make([]string, 0, len(running))
			for p := range running {
				ports = append(ports, p)
			}
			sort.Strings(ports)
			for _, p := range ports {
				fmt.Fprintln(io.Out, running[p].URL)
			}
			return nil
		},
	}
	sd.register(cmd, "state dir the inbox serves")
	return cmd
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/spf13/cobra"
)

// inboxOptions are interceptor inbox's flags.
type inboxOptions struct {
	stateDirFlag
	listen      string
	allowRemote bool
	notify      string
	notifyEnv   string
	notifyFile  string
	notifyJSON  bool
	notifyWait  time.Duration
	desktop     bool
	newKey      bool
	nats        NATSOptions
}

// run reads the flags into what the page is served with.
func (o *inboxOptions) run() (*InboxRun, error) {
	dir, err := o.resolve()
	if err != nil {
		return nil, err
	}
	notify, err := o.notifyURL(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	wait := o.notifyWait
	if wait < 0 {
		return nil, fmt.Errorf("--notify-wait %s: want 0 (each at once) or more", wait)
	}
	if wait == 0 {
		wait = -1 // inbox.Options: 0 is the default
	}
	return &InboxRun{StateDir: dir, Listen: o.listen, AllowRemote: o.allowRemote, Notify: notify,
		NotifyJSON: o.notifyJSON, NotifyWait: wait, Desktop: o.desktop, NewKey: o.newKey, NATS: o.nats}, nil
}

// notifyURL is the URL --notify, --notify-env or --notify-file gives (at
// most one of them), "" for none. The URL is a secret: argv is readable by
// every local user (ps, /proc/PID/cmdline), a process's environment and a
// private file only by its own; no error repeats the URL.
func (o *inboxOptions) notifyURL(lookup func(string) (string, bool)) (string, error) {
	given := 0
	for _, v := range []string{o.notify, o.notifyEnv, o.notifyFile} {
		if v != "" {
			given++
		}
	}
	if given > 1 {
		return "", errors.New("--notify, --notify-env and --notify-file each give the notify URL: give one")
	}
	switch {
	case o.notifyEnv != "":
		v, ok := lookup(o.notifyEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return "", fmt.Errorf("--notify-env: the environment variable %s is not set", o.notifyEnv)
		}
		return strings.TrimSpace(v), nil
	case o.notifyFile != "":
		b, err := privfs.ReadFile(o.notifyFile, "--notify-file", 8<<10)
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("--notify-file %s: no such file", o.notifyFile)
		}
		if err != nil {
			return "", err
		}
		v := strings.TrimSpace(string(b))
		if v == "" || strings.ContainsAny(v, "\r\n") {
			return "", fmt.Errorf("--notify-file %s: want the URL alone, on one line", o.notifyFile)
		}
		return v, nil
	}
	return o.notify, nil
}

// newInboxCmd is inbox, whose page serve serves (HTTP.Inbox: nil in
// interceptor, where net/http would slow every hook's start-up).
func newInboxCmd(io *IO, serve func(context.Context, *InboxRun, *IO) error) *cobra.Command {
	o := &inboxOptions{}
	cmd := &cobra.Command{
		Use:   "inbox [--listen 127.0.0.1:PORT] [--notify-env VAR | --notify-file PATH | --notify URL] [--new-key]",
		Short: "A local web page for everything that waits for you: approvals, human tools' questions, children's chats",
		Long: `Serves one page on loopback where you allow or deny the approval queue's
requests (and allow with edited input), answer human tools' questions, follow
the children's chats as they run, and search the history. Decisions are
recorded as the CLI's are, with decided_by naming this process.

It prints the page's URL, which carries the page's key after '#': the
browser keeps it in the tab and never sends it to a server. The key is kept
in the state dir (inbox/key, 0600) and used again at the next start, so an
open tab reconnects; --new-key replaces it. Keep the URL to yourself.
'interceptor inbox url' prints it again while the inbox runs (from a private
file in the state dir). When the port of --listen is taken, inbox says
whether this state dir's own inbox holds it.

--notify URL POSTs a short message (the tool, the child, the page's address
without the key; never the arguments or a token) when something starts
waiting: an ntfy topic (https://ntfy.sh/TOPIC) or, with --notify-json, a
webhook. A burst is one message ("5 requests wait"), at ntfy's high
priority when an approval waits; it is updated as requests are decided and
cleared when none is left (ntfy 2.16+). The URL is a secret (whoever knows an ntfy topic reads it), and a
command line is readable by every user of the machine (ps): give it with
--notify-env VAR (an environment variable holding it) or --notify-file PATH
(a 0600 file holding it) instead. Only its scheme and host are ever printed
or logged. On Linux a desktop notification is shown too when notify-send is
on PATH (--desktop=false turns it off).

The page is built into interceptor-http (the release's second binary), not
into interceptor, whose hooks must start fast. See docs/inbox.md.

--nats URL shows the requests of every machine whose relay publishes to that
NATS server (interceptor-http relay), each card naming its machine, and
decides through NATS; a machine whose relay is silent has its requests shown
as unreachable. History, the children and their chats stay this machine's.
See docs/relay.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if serve == nil {
				return errors.New("inbox: this binary has no web server (it would slow every hook's start-up); run interceptor-http inbox from the same release, or build ./cmd/interceptor-http")
			}
			r, err := o.run()
			if err != nil {
				return err
			}
			return serve(cmd.Context(), r, io)
		},
	}
	cmd.AddCommand(newInboxURLCmd(io))
	o.stateDirFlag.register(cmd, "state dir holding the approval queue and the children")
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:0", "HOST:PORT to listen on (port 0: any free port); loopback only unless --allow-remote")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "allow --listen on an address beyond loopback (anyone who reaches it and has the URL decides your agents' tool calls)")
	f.StringVar(&o.notify, "notify", "", "POST a short message to this URL when something starts waiting (ntfy style); every local user can read it in the process list: --notify-env or --notify-file keep it out")
	f.StringVar(&o.notifyEnv, "notify-env", "", "the --notify URL is in this environment variable")
	f.StringVar(&o.notifyFile, "notify-file", "", "the --notify URL is in this file (0600, yours)")
	f.BoolVar(&o.notifyJSON, "notify-json", false, "send --notify a JSON object (event, sequence_id, count, text, title, requests, link) instead of text")
	f.DurationVar(&o.notifyWait, "notify-wait", 1500*time.Millisecond, "how long the first new request waits for others to go in one message (0: each at once)")
	f.BoolVar(&o.desktop, "desktop", true, "show a desktop notification too where there is a way (notify-send on PATH)")
	natsFlags(cmd, &o.nats, ": show every machine's requests (each machine runs interceptor-http relay) and decide through NATS")
	f.BoolVar(&o.newKey, "new-key", false, "replace the page's key (state dir's inbox/key) before serving: open tabs stop working, the new URL works")
	return cmd
}

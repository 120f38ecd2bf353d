package httpcmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/cli"
	"github.com/interceptor-dev/interceptor/internal/inbox"
)

// serveInbox serves the page until ctx ends, Ctrl-C or SIGTERM.
func serveInbox(ctx context.Context, r *cli.InboxRun, io *cli.IO) error {
	opts := inbox.Options{StateDir: r.StateDir, Listen: r.Listen, AllowRemote: r.AllowRemote,
		Notify: r.Notify, NotifyJSON: r.NotifyJSON, NotifyWait: r.NotifyWait, Desktop: r.Desktop, Log: io.Err, NewKey: r.NewKey}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if r.NATS.URL != "" {
		src, closeNATS, err := natsSource(ctx, r.NATS, r.StateDir, io.Err)
		if err != nil {
			return err
		}
		defer closeNATS()
		opts.Source = src
	}
	srv, err := inbox.Listen(opts)
	if err != nil {
		return cli.BusyPort(r.StateDir, r.Listen, err)
	}
	release, err := cli.AnnounceInbox(r.StateDir, srv.Addr(), srv.URL())
	if err != nil {
		return err
	}
	defer release()
	if r.AllowRemote {
		fmt.Fprintf(io.Err, "inbox: WARNING: listening on %s, beyond loopback (--allow-remote): anyone who can reach it and has the URL decides your agents' tool calls, over plain HTTP\n", srv.Addr())
	}
	if err := approvals.WatchUnavailable(); err != nil {
		fmt.Fprintf(io.Err, "inbox: note: the page and waiting hooks re-read the queue every 50 ms instead of waking on a change: %v\n", err)
	}
	fmt.Fprintf(io.Out, "interceptor inbox: open %s\n", srv.URL())
	fmt.Fprintf(io.Out, "state dir %s; %s; interceptor inbox url prints the URL again\n", r.StateDir, srv.Describe())
	if r.NATS.URL != "" {
		fmt.Fprintf(io.Out, "every machine's requests, through NATS (interceptor-http relay on each)\n")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return srv.Serve(ctx)
}

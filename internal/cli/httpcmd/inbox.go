//go:build proxyhttp

package cli

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/interceptor-dev/interceptor/internal/inbox"
	"github.com/spf13/cobra"
)

func init() {
	runInbox = func(cmd *cobra.Command, o *inboxOptions, io *IO) error {
		dir, err := o.resolve()
		if err != nil {
			return err
		}
		notify, err := o.notifyURL(os.LookupEnv)
		if err != nil {
			return err
		}
		srv, err := inbox.Listen(inbox.Options{StateDir: dir, Listen: o.listen, AllowRemote: o.allowRemote,
			Notify: notify, NotifyJSON: o.notifyJSON, Desktop: o.desktop, Log: io.Err, NewKey: o.newKey})
		if err != nil {
			return err
		}
		if o.allowRemote {
			fmt.Fprintf(io.Err, "inbox: WARNING: listening on %s, beyond loopback (--allow-remote): anyone who can reach it and has the URL decides your agents' tool calls, over plain HTTP\n", srv.Addr())
		}
		fmt.Fprintf(io.Out, "interceptor inbox: open %s\n", srv.URL())
		fmt.Fprintf(io.Out, "state dir %s; %s\n", dir, srv.Describe())
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return srv.Serve(ctx)
	}
}

package httpcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/cli"
	natsrelay "github.com/interceptor-dev/interceptor/internal/relay"
	"github.com/nats-io/nats.go"
)

// connectNATS connects as o says; reconnected is called at each
// reconnect, once set.
func connectNATS(o cli.NATSOptions, name string, log io.Writer, reconnected *atomic.Pointer[func()]) (*nats.Conn, string, error) {
	machine := o.Machine
	if machine == "" {
		m, err := natsrelay.DefaultMachine()
		if err != nil {
			return nil, "", err
		}
		machine = m
	}
	if err := natsrelay.CheckMachine(machine); err != nil {
		return nil, "", fmt.Errorf("--machine: %w", err)
	}
	nc, err := natsrelay.Connect(natsrelay.ConnOptions{URL: o.URL, Creds: o.Creds, NKey: o.NKey, TLSCA: o.TLSCA,
		Name: name + " " + machine, Machine: machine, Log: log, Reconnected: func() {
			if f := reconnected.Load(); f != nil {
				(*f)()
			}
		}})
	return nc, machine, err
}

// natsRelay runs interceptor-http relay until ctx ends, Ctrl-C or SIGTERM.
func natsRelay(ctx context.Context, r *cli.RelayRun, io *cli.IO) error {
	var hook atomic.Pointer[func()]
	nc, machine, err := connectNATS(r.NATS, "interceptor relay", io.Err, &hook)
	if err != nil {
		return err
	}
	defer nc.Close()
	rl, err := natsrelay.New(natsrelay.Options{StateDir: r.StateDir, Machine: machine, Conn: nc, Log: io.Err, Every: r.Every})
	if err != nil {
		return err
	}
	f := rl.Reconnected
	hook.Store(&f)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(io.Out, "interceptor relay: machine %s, state dir %s, NATS %s (subjects interceptor.%s.*)\n", machine, r.StateDir,
		natsrelay.Redacted(r.NATS.URL), machine)
	return rl.Run(ctx)
}

// natsSource is the inbox's source of every machine's requests; history
// and rules stay those of the queue in stateDir.
func natsSource(ctx context.Context, o cli.NATSOptions, stateDir string, log io.Writer) (*natsrelay.Inbox, func(), error) {
	var hook atomic.Pointer[func()]
	nc, machine, err := connectNATS(o, "interceptor inbox", log, &hook)
	if err != nil {
		return nil, nil, err
	}
	in, err := natsrelay.NewInbox(ctx, nc, machine, approvals.New(stateDir), log)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	f := in.Reconnected
	hook.Store(&f)
	return in, nc.Close, nil
}

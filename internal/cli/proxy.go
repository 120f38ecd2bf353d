package cli

import (
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/proxy"
	"github.com/spf13/cobra"
)

// exitCodeError carries the proxied server's exit code when no exit
// function is injected (tests).
type exitCodeError int

func (e exitCodeError) Error() string { return fmt.Sprintf("the server exited with code %d", int(e)) }

// proxyFlags are proxy's flags.
type proxyFlags struct {
	cfg      proxy.Config
	url      string
	urlEnv   string // --url-env: the variable holding the URL
	headers  []string
	hdrEnv   headerEnvFlags // --header-env, --bearer-env: header values from the environment
	oauth    oauthFlags     // --client-id and the like: the relay's OAuth client (proxy_oauth.go)
	stateDir stateDirFlag
	grace    time.Duration
	human    humanFlags
}

// newProxyCmd is proxy, which runF runs (HTTP.runProxy; a test's own to
// see what the flags make without starting a server).
func newProxyCmd(io *IO, runF func(*ProxyRun) error) *cobra.Command {
	f := &proxyFlags{}
	cmd := &cobra.Command{
		Use:   "proxy [--server-name NAME] -- COMMAND [ARGS...] | proxy --url URL | proxy --url-env VAR",
		Short: "Run as the client's MCP server, relay to the real one and carry the handles it mints",
		Long: `Configure this as the MCP server in any client. It starts COMMAND as the real
(stdio) server, or relays to the Streamable HTTP server at --url (or at the
address in the environment variable --url-env names, which keeps a key in
the address out of the process list), and passes every message through
untouched except three:

  tools/list results   a rotating handle's argument (--arg) is removed from
                       the input schemas of the tools that take it, so the
                       model is never asked for it; a stable handle's is kept,
                       optional, with a description saying interceptor fills
                       it in
  tools/call requests  every argument that is a stand-in gets the value it
                       names; a handle argument a few edits from one held
                       long value is repaired; a call that names none gets
                       the value held for it (not a --skip-tool, nor a call
                       carrying one of --keep-if); a call that needs a value
                       no longer held (its --start-tool returned none) is
                       answered with an error the model reads
  tools/call results   new values are taken from _meta, structuredContent or
                       the text (under --meta-key), as hooks take them

and every long value held for the session, in any message from the server,
is shown as its stand-in, e.g. [session_token 1a2b3c4d held by interceptor].
A --url server that asks for OAuth (a 401 with a Bearer challenge) has the
relay authorize with it, opening your browser, as a client reaching it
itself would (interceptor-http auth login does it ahead of time).
Several handles per server are declared in a --handles file
(docs/handles.md); without one, the flags describe one.

The values live with the connection (one client session, one proxy; the
last 64 of each handle). With --persist they are also kept in the state
store under --server-name and --session, so a restarted client resumes. The
server's exit code is the proxy's; its stderr passes through.`,
		Example: `  interceptor proxy --server-name wf -- node /path/to/server.js
  interceptor proxy --server-name workflow-server --arg session_index -- node dist/index.js --workspace=DIR
  interceptor proxy --server-name desktop-commander --handles handles.json -- npx @wonderwhy-er/desktop-commander
  interceptor proxy --url https://host/mcp --header "Authorization: Bearer $TOKEN"
  MCP_URL='https://host/s/KEY/mcp?api_key=KEY' interceptor-http proxy --url-env MCP_URL --header-env Authorization=MCP_AUTH`,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := f.run(cmd, args, io)
			if err != nil {
				return fmt.Errorf("proxy: %w", err)
			}
			return runF(r)
		},
	}
	fl := cmd.Flags()
	// Everything after the server's command is the server's, flags included.
	fl.SetInterspersed(false)
	fl.StringVar(&f.cfg.Server, "server-name", "", "the server's name: where --persist keeps its token")
	fl.StringVar(&f.url, "url", "", "relay to this Streamable HTTP MCP endpoint instead of starting a command (the process list shows it: --url-env keeps a key in it out)")
	fl.StringVar(&f.urlEnv, "url-env", "", "relay to the Streamable HTTP MCP endpoint in this environment variable (what install --proxy writes): unlike --url, the address stays out of the process list")
	fl.StringArrayVar(&f.headers, "header", nil, `HTTP header sent to --url, "Name: value" (repeatable; the process list shows it: --header-env keeps a secret out)`)
	f.hdrEnv.register(fl)
	f.oauth.register(fl, true)
	registerCarried(fl, &f.cfg.Options, carry.Proxy)
	fl.BoolVar(&f.cfg.Persist, "persist", false, "also keep the token in the state store, and resume from it")
	fl.StringVar(&f.cfg.Session, "session", "", "with --persist: the session the token is kept under (default: the server's current token)")
	f.stateDir.register(cmd, "where --persist keeps tokens, and OAuth (--url) its own")
	fl.IntVar(&f.cfg.MaxMessage, "max-message", proxy.DefaultMaxMessage, "largest message relayed, in bytes: a longer one is not kept in memory but answered with a JSON-RPC error")
	f.human.register(fl)
	fl.DurationVar(&f.grace, "grace", proxy.DefaultGrace, "on shutdown, how long the server gets to exit before SIGTERM, and again before it is killed")
	return cmd
}

// run reads the flags and the server's command (args) into a ProxyRun.
func (f *proxyFlags) run(cmd *cobra.Command, args []string, io *IO) (*ProxyRun, error) {
	url, err := f.address()
	if err != nil {
		return nil, err
	}
	switch {
	case url == "" && len(args) == 0:
		return nil, errors.New("give the server's command after --, or --url (or --url-env)")
	case url != "" && len(args) > 0:
		return nil, errors.New("give either a command or --url, not both")
	case f.human.file != "" && url != "":
		return nil, errors.New("--human-tools works with a stdio server (a command), not --url")
	}
	cfg := f.cfg
	if cfg.Persist {
		st, err := f.stateDir.store()
		if err != nil {
			return nil, err
		}
		cfg.Store = st
	}
	if err := cfg.Options.Resolve(cmd.Flags().Changed); err != nil {
		return nil, err
	}
	cfg.Log = io.Err
	if f.human.file != "" {
		h, err := f.human.served(&f.stateDir, cfg.Session, cfg.Arg)
		if err != nil {
			return nil, err
		}
		cfg.Human = h
	}
	r := &ProxyRun{IO: io, Config: cfg, Command: args, URL: url, Grace: f.grace}
	for _, hv := range f.headers {
		name, value, ok := strings.Cut(hv, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, errors.New(`a --header is not "Name: value"`) // its value may be a secret: not echoed
		}
		r.Header = append(r.Header, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	}
	more, err := f.hdrEnv.headers(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	r.Header = append(r.Header, more...)
	if url != "" {
		if r.OAuth, err = f.oauth.resolve(r.Header, &f.stateDir, os.LookupEnv); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// address is the server's URL: --url, or the value of the variable
// --url-env names. An error never shows the value (it may hold a key).
func (f *proxyFlags) address() (string, error) {
	if f.urlEnv == "" {
		return f.url, nil
	}
	if f.url != "" {
		return "", errors.New("give --url or --url-env, not both")
	}
	v, ok := os.LookupEnv(f.urlEnv)
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return "", fmt.Errorf("--url-env: the environment variable %s is not set", f.urlEnv)
	}
	if u, err := neturl.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--url-env: %s does not hold an http or https URL (its value is not shown: it may hold a key)", f.urlEnv)
	}
	return v, nil
}

// runProxy relays until the server or the client ends; the server's exit
// code is the proxy's. A --url server needs h.Relay.
func (h HTTP) runProxy(r *ProxyRun) error {
	if r.URL != "" && h.Relay == nil {
		return errors.New("proxy: --url: this binary has no HTTP relay (it would slow every hook's start-up); use interceptor-http from the same release, or build ./cmd/interceptor-http")
	}
	rw, err := proxy.New(r.Config)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// A client that goes away must not kill us with SIGPIPE before we stop
	// the server: with a handler, writes report EPIPE instead.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	defer signal.Reset(os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	var code int
	if r.URL != "" {
		code, err = h.Relay(rw, r, sigs)
	} else {
		s := &proxy.Stdio{Command: r.Command, In: r.IO.In, Out: r.IO.Out, Err: r.IO.Err, Signals: sigs, Grace: r.Grace}
		code, err = s.Run(rw)
	}
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	if code != 0 {
		if r.IO.Exit != nil {
			r.IO.Exit(code)
		}
		return exitCodeError(code)
	}
	return nil
}

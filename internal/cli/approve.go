package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/lifecycle"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/spf13/cobra"
)

// approveGrace is how long past --timeout the hook's own watchdog waits
// before it denies and exits, whatever is stuck.
const approveGrace = 10 * time.Second

// approveFlags are approve's flags.
type approveFlags struct {
	client    string
	stateDir  stateDirFlag
	debugLog  string
	match     string
	allow     []string
	deny      []string
	timeout   time.Duration
	onTimeout string
	chat      string
	arg       string
	// envErr is a refused INTERCEPTOR_<FLAG> variable (applyEnv): the call
	// is denied for it, not passed.
	envErr error
}

func newApproveCmd(io *IO) *cobra.Command {
	f := &approveFlags{}
	cmd := hookCmd("approve [--match REGEX] [--timeout 5m] [--on-timeout deny|allow]",
		"Pre-tool hook: hold a tool call until a supervisor allows or denies it",
		wrap(`Reads one pre-tool hook event on stdin (any client). A call whose tool name
matches --match (default: every tool) is decided by rules first: a name
matching a --deny REGEX is denied, then one matching an --allow REGEX is
allowed, without asking. Any other call is put in the approval queue
(<state dir>/approvals/) and the hook blocks until a supervisor decides it
(interceptor approvals allow|deny ID, approvals watch, or the MCP server
interceptor mcp --role supervisor), then answers in the client's own terms:
allow or deny, with the reason the model reads, and on allow the
supervisor's new arguments where the client takes them`+newInputCaveats()+`. install
writes the approve hook for `+displays(clientsWhere(func(c *hooks.Client) bool { return !c.NoApprove }))+`. Regexes match the tool name as
the client sends it (mcp__wf__next_step, mcp_wf_next_step, wf_next_step).`)+`

After --timeout with no decision the request expires and the call is denied
(--on-timeout allow runs it instead). The client's own hook timeout must be
longer than --timeout plus 30 s, or the client kills the hook and runs the
tool unapproved: interceptor install sets it, interceptor doctor checks it.

Failure policy: fails CLOSED. Any problem once the event is read (unsafe
state dir, a lock held too long, a bad --match/--allow/--deny regex) denies
the call with the problem as the reason, plus one line on stderr. An event
that cannot be fully read (over 8 MiB, nested too deep, not JSON, stdin not
closed within 5 s) is denied too, in the shape of the --client named; only
with --client auto is there no shape to answer in: one stderr line and the
call proceeds under the client's own rules. Always exits 0, never 2.`)
	fl := cmd.Flags()
	fl.StringVar(&f.client, "client", "auto", "the client sending the event: auto, "+strings.Join(hooks.ClientNames(), ", "))
	f.stateDir.register(cmd, "state dir holding the approval queue and the tokens kept out of its records")
	fl.StringVar(&f.debugLog, "debug-log", "", "append a trace of each run to this file")
	fl.StringVar(&f.match, "match", "", "only tools whose name matches this regex need approval (default: all)")
	fl.StringArrayVar(&f.allow, "allow", nil, "allow tools whose name matches this regex without asking (repeatable)")
	fl.StringArrayVar(&f.deny, "deny", nil, "deny tools whose name matches this regex without asking; wins over --allow (repeatable)")
	fl.DurationVar(&f.timeout, "timeout", approvals.DefaultTimeout, "how long to wait for a decision")
	fl.StringVar(&f.onTimeout, "on-timeout", "deny", "what an undecided call gets after --timeout: deny or allow")
	fl.StringVar(&f.chat, "chat", "", "tag requests with this child chat (interceptor children sets INTERCEPTOR_CHAT)")
	fl.StringVar(&f.arg, "arg", approvals.DefaultKey, "the token argument: the queue shows a stand-in for any value under it, and for any token held for the session")
	// The root's applyEnv fails a command before it runs, and a hook that
	// fails lets the call proceed: approve keeps the error and denies.
	cmd.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		f.envErr = applyEnv(cmd.Flags())
		return nil
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runApprove(cmd, io, f)
	}
	return cmd
}

// newInputCaveats is where new arguments do not reach the call, from the
// clients' descriptions: " (…; …)", or "" when they reach it everywhere.
func newInputCaveats() string {
	var out []string
	for _, c := range clientsWhere(func(c *hooks.Client) bool { return c.NewInputCaveat != "" }) {
		out = append(out, c.NewInputCaveat)
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// onceWriter lets the watchdog and the normal path race to answer: the
// first reply wins, the other is dropped.
type onceWriter struct {
	mu   sync.Mutex
	w    io.Writer
	done bool
}

func (o *onceWriter) reply(b []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || len(b) == 0 {
		o.done = true
		return nil
	}
	o.done = true
	b = rawjson.OneLine(b)
	_, err := o.w.Write(append(b, '\n'))
	return err
}

// approveReadDeadline bounds reading the event, as hookDeadline does for
// inject: a writer that holds stdin open must not hold the call forever (a
// variable so tests need not wait 5 s).
var approveReadDeadline = hookDeadline

func runApprove(cmd *cobra.Command, io *IO, f *approveFlags) (err error) {
	client, err := hooks.Lookup(f.client)
	if err != nil {
		return fmt.Errorf("approve: %w", err)
	}
	a := &approveRun{io: io, f: f, client: client, out: &onceWriter{w: io.Out}}
	payload, answered, err := a.readEvent()
	if answered {
		return nil // the watchdog has denied: nothing more to say
	}
	if err != nil {
		return a.denyUnread(fmt.Errorf("reading stdin: %w", err))
	}
	ev, err := hooks.Parse(payload, client)
	if err != nil {
		return a.denyUnread(err)
	}
	if ev.Phase != hooks.PhasePreTool {
		f.trace("not a pre-tool event: " + ev.Name)
		return nil
	}
	a.ev = ev
	defer func() {
		if r := recover(); r != nil {
			err = a.failClosed(fmt.Errorf("internal error: %v", r))
		}
	}()
	if f.envErr != nil {
		return a.failClosed(f.envErr)
	}
	if io.Exit != nil {
		t := time.AfterFunc(f.timeout+approveGrace, func() {
			err := a.failClosed(fmt.Errorf("gave up after %s", f.timeout+approveGrace))
			fmt.Fprintf(io.Err, "interceptor: %s\n", oneLine(err.Error()))
			io.Exit(0)
		})
		defer t.Stop()
	}
	return a.decide(cmd.Context())
}

// approveRun is one run of the approve hook: the event it answers and
// where the answer goes.
type approveRun struct {
	io     *IO
	f      *approveFlags
	client hooks.Adapter // nil with --client auto
	ev     *hooks.Event  // once read
	out    *onceWriter
}

// readEvent reads the event on stdin. In the process (io.Exit set) a
// watchdog denies and exits when stdin is not closed within
// approveReadDeadline; answered reports that it did.
func (a *approveRun) readEvent() (payload []byte, answered bool, err error) {
	if a.io.Exit == nil {
		payload, err = readAllLimited(a.io.In)
		return payload, false, err
	}
	done := make(chan struct{})
	t := time.AfterFunc(approveReadDeadline, func() {
		err := a.denyUnread(fmt.Errorf("gave up reading the event on stdin after %s", approveReadDeadline))
		fmt.Fprintf(a.io.Err, "interceptor: %s\n", oneLine(err.Error()))
		close(done)
		a.io.Exit(0)
	})
	payload, err = readAllLimited(a.io.In)
	if !t.Stop() {
		<-done
		return nil, true, nil
	}
	return payload, false, err
}

// denyUnread answers an event that could not be fully read. The model
// controls much of it (a tool input nested too deep, a payload too large),
// so passing it through would let the model skip approval: with the client
// known (install always names it) the call is denied in its shape. With
// --client auto there is no shape to answer in.
func (a *approveRun) denyUnread(problem error) error {
	a.f.trace("error: " + problem.Error())
	if a.client == nil {
		return fmt.Errorf("approve: %w (client unknown, so the call could not be denied; use --client)", problem)
	}
	b, rerr := hooks.DenyUnread(a.client, "interceptor approve could not read the hook event, so the call is denied: "+oneLine(problem.Error()))
	return a.denied(problem, b, rerr)
}

// failClosed denies the event's call, with the problem as the reason.
func (a *approveRun) failClosed(problem error) error {
	msg := "interceptor approve failed, so the call is denied: " + oneLine(problem.Error())
	b, rerr := a.ev.Client.DecisionReply(a.ev, hooks.Decision{Reason: msg})
	a.f.trace("error: " + problem.Error())
	return a.denied(problem, b, rerr)
}

// denied writes the deny b (rendered with error rerr) for problem and
// returns the hook's one line about it.
func (a *approveRun) denied(problem error, b []byte, rerr error) error {
	if rerr == nil {
		rerr = a.out.reply(b)
	}
	if rerr != nil {
		return fmt.Errorf("approve: %v (and the deny could not be written: %v)", problem, rerr)
	}
	return fmt.Errorf("approve: %v (call denied)", problem)
}

// decide has the call decided (approvals.Store.Ask, under the policy the
// flags make) and writes the client's answer. A flag that does not parse,
// a queue that cannot be used, a decision the client cannot carry out:
// each denies.
func (a *approveRun) decide(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ev, f := a.ev, a.f
	p, err := f.policy()
	if err != nil {
		return a.failClosed(err)
	}
	dir, err := f.stateDir.resolve()
	if err != nil {
		return a.failClosed(err)
	}
	if !p.Decides(ev.ToolName) {
		f.trace(fmt.Sprintf("tool=%s not matched by --match: passed through", ev.ToolName))
		return nil // the client's own rules apply
	}
	input := ev.Input.Raw
	if input == "" {
		input = "{}"
	}
	d, err := approvals.New(dir).Ask(ctx, p, approvals.Call{
		Client:  ev.Client.Name(),
		Session: ev.Session,
		Tool:    ev.ToolName,
		Input:   input,
		Origin:  fmt.Sprintf("approve hook pid %d", os.Getpid()),
		Chat:    f.chat,
		Tokens:  state.New(dir),
		Key:     f.arg,
		// A stand-in in a supervisor's new input resolves only to a value
		// of the server the event says the tool is of.
		Owns: func(server string) bool { _, ok := ev.Client.Tool(ev, server); return ok },
	})
	if err != nil {
		return a.failClosed(err)
	}
	b, err := ev.Client.DecisionReply(ev, d)
	if errors.Is(err, hooks.ErrCannotRewrite) && d.Allow && d.UpdatedInput != "" {
		return a.failClosed(fmt.Errorf("%s cannot change the input of a %s call; the allow with new input is not applied", ev.Client.Name(), ev.Name))
	}
	if err != nil {
		return a.failClosed(err)
	}
	f.trace(fmt.Sprintf("tool=%s allow=%t %s", ev.ToolName, d.Allow, d.By))
	if err := a.out.reply(b); err != nil {
		return fmt.Errorf("approve: writing reply: %w", err)
	}
	return nil
}

// policy reads the rule and timeout flags.
func (f *approveFlags) policy() (approvals.Policy, error) {
	p := approvals.Policy{Timeout: f.timeout}
	switch f.onTimeout {
	case "deny":
	case "allow":
		p.OnTimeoutAllow = true
	default:
		return p, fmt.Errorf("--on-timeout %q: want deny or allow", f.onTimeout)
	}
	if f.timeout <= 0 {
		return p, fmt.Errorf("--timeout %s: must be positive", f.timeout)
	}
	compile := func(flag, re string) (*regexp.Regexp, error) {
		r, err := regexp.Compile(re)
		if err != nil {
			return nil, fmt.Errorf("--%s %q: %v", flag, re, err)
		}
		return r, nil
	}
	var err error
	if f.match != "" {
		if p.Match, err = compile("match", f.match); err != nil {
			return p, err
		}
	}
	for _, x := range f.deny {
		re, err := compile("deny", x)
		if err != nil {
			return p, err
		}
		p.Deny = append(p.Deny, re)
	}
	for _, x := range f.allow {
		re, err := compile("allow", x)
		if err != nil {
			return p, err
		}
		p.Allow = append(p.Allow, re)
	}
	return p, nil
}

func readAllLimited(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, hooks.MaxPayload+1))
}

func (f *approveFlags) trace(msg string) {
	(&hookFlags{debugLog: f.debugLog}).trace("approve", lifecycle.Outcome{Trace: msg}, nil)
}

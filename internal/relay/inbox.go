package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/inbox"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Inbox is the page's source of every machine's requests (inbox.Source):
// it follows the two buckets (a watch: NATS pushes each change, nothing is
// polled) and sends decisions and answers to the request's machine, whose
// relay applies them through its own queue. History, the standing rules
// and the Viewer are this machine's queue's (here), as on a local page.
type Inbox struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	from    string // this machine's name, sent with each action
	here    *approvals.Store
	log     io.Writer
	timeout time.Duration

	mu       sync.Mutex
	reqs     map[string]Entry    // by bucket key
	pres     map[string]Presence // by machine
	changed  chan struct{}       // closed at the next change
	restart  chan struct{}
	loaded   chan struct{} // closed once both buckets were read whole
	isLoaded bool
}

// NewInbox follows the buckets on nc until ctx ends. from names this
// machine in the decided_by of its decisions, and here is its queue (the
// inbox's state dir): the requests of machine from are Here.
func NewInbox(ctx context.Context, nc *nats.Conn, from string, here *approvals.Store, log io.Writer) (*Inbox, error) {
	if err := CheckMachine(from); err != nil {
		return nil, err
	}
	if here == nil {
		return nil, errors.New("relay inbox: no queue of this machine")
	}
	if log == nil {
		log = io.Discard
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	in := &Inbox{nc: nc, js: js, from: from, here: here, log: log, timeout: 5 * time.Second, reqs: map[string]Entry{},
		pres: map[string]Presence{}, changed: make(chan struct{}), restart: make(chan struct{}, 1), loaded: make(chan struct{})}
	go in.follow(ctx)
	return in, nil
}

// Reconnected makes the inbox read the buckets anew (a restarted server
// may have lost what it held).
func (in *Inbox) Reconnected() {
	select {
	case in.restart <- struct{}{}:
	default:
	}
}

// Loaded is closed once the buckets were read whole the first time.
func (in *Inbox) Loaded() <-chan struct{} { return in.loaded }

// follow watches both buckets, again after each reconnect or failure.
func (in *Inbox) follow(ctx context.Context) {
	var said string
	wait := 200 * time.Millisecond
	for ctx.Err() == nil {
		err := in.watch(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil && err.Error() != said {
			said = err.Error()
			fmt.Fprintf(in.log, "inbox: nats: %s (retrying)\n", approvals.Visible(said))
		}
		select {
		case <-ctx.Done():
		case <-in.restart:
		case <-time.After(wait):
			wait = min(2*wait, 2*time.Second)
		}
	}
}

// watch reads both buckets whole into fresh maps, swaps them in, then
// applies each change until a reconnect, a failure or ctx's end.
func (in *Inbox) watch(ctx context.Context) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ws [2]jetstream.KeyWatcher
	for i, b := range []string{RequestsBucket, MachinesBucket} {
		kv, err := in.js.KeyValue(wctx, b)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			// A server that lost its store: what was shown is gone
			// until the relays publish again.
			in.mu.Lock()
			if len(in.reqs)+len(in.pres) > 0 {
				in.reqs, in.pres = map[string]Entry{}, map[string]Presence{}
				in.notify()
			}
			in.mu.Unlock()
		}
		if err != nil {
			return fmt.Errorf("bucket %s: %w (no relay has started yet?)", b, err)
		}
		if ws[i], err = kv.WatchAll(wctx); err != nil {
			return fmt.Errorf("watching %s: %w", b, err)
		}
		defer ws[i].Stop()
	}
	// Both buckets are read into fresh maps, which become the live ones
	// once both were read whole; a change of one bucket that arrives while
	// the other is still being read goes into its fresh map too (into the
	// live one, it was lost at the swap: a request published while two
	// relays started at once never showed).
	reqs, pres := map[string]Entry{}, map[string]Presence{}
	initial := [2]bool{true, true}
	for {
		var e jetstream.KeyValueEntry
		var ok bool
		i := 0
		select {
		case <-ctx.Done():
			return nil
		case <-in.restart:
			return nil
		case e, ok = <-ws[0].Updates():
		case e, ok = <-ws[1].Updates():
			i = 1
		}
		if !ok {
			return fmt.Errorf("the watch of %s ended", []string{RequestsBucket, MachinesBucket}[i])
		}
		if e == nil { // bucket i was read whole
			initial[i] = false
			if !initial[0] && !initial[1] {
				in.swap(reqs, pres)
			}
			continue
		}
		in.mu.Lock()
		if i == 0 {
			applyEntry(e, reqs)
		} else {
			applyEntry(e, pres)
		}
		if !initial[0] && !initial[1] {
			in.notify()
		}
		in.mu.Unlock()
	}
}

// applyEntry records one change of a bucket into m: a put (a value that
// does not parse counts as none), a delete or a purge.
func applyEntry[V any](e jetstream.KeyValueEntry, m map[string]V) {
	var v V
	if e.Operation() != jetstream.KeyValuePut || json.Unmarshal(e.Value(), &v) != nil {
		delete(m, e.Key())
		return
	}
	m[e.Key()] = v
}

// swap makes the maps read whole the live ones.
func (in *Inbox) swap(reqs map[string]Entry, pres map[string]Presence) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.reqs, in.pres = reqs, pres
	in.notify()
	if !in.isLoaded {
		in.isLoaded = true
		close(in.loaded)
	}
}

// notify wakes Changes; in.mu is held.
func (in *Inbox) notify() {
	close(in.changed)
	in.changed = make(chan struct{})
}

// Open is every machine's open requests, oldest first; a machine whose
// relay is silent has its requests marked unreachable.
func (in *Inbox) Open(context.Context) ([]inbox.Open, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	now := time.Now()
	out := make([]inbox.Open, 0, len(in.reqs))
	for k, e := range in.reqs {
		m, _, _ := strings.Cut(k, ".") // the key's machine, which NATS permissions scope, not the value's word
		out = append(out, inbox.Open{Request: e.Request.Request(), Machine: m, Child: e.Child,
			Unreachable: !in.pres[m].Reachable(now)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if !a.Request.Created.Equal(b.Request.Created) {
			return a.Request.Created.Before(b.Request.Created)
		}
		if a.Machine != b.Machine {
			return a.Machine < b.Machine
		}
		return a.Request.ID < b.Request.ID
	})
	return out, nil
}

// Get is one open request of machine.
func (in *Inbox) Get(_ context.Context, machine, id string) (approvals.Request, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	e, ok := in.reqs[requestKey(machine, id)]
	if !ok {
		return approvals.Request{}, fmt.Errorf("%w: %s is not open on machine %s", approvals.ErrUnknown, id, machine)
	}
	return e.Request.Request(), nil
}

// Decide sends d to the request's machine, whose relay applies it.
func (in *Inbox) Decide(ctx context.Context, machine, id string, d hooks.Decision) (approvals.Request, error) {
	allow := d.Allow
	return in.act(ctx, machine, Action{ID: id, Allow: &allow, Reason: d.Reason, UpdatedInput: d.UpdatedInput, By: d.By})
}

// Answer sends an answer to the question's machine.
func (in *Inbox) Answer(ctx context.Context, machine, id, answer, by string) (approvals.Request, error) {
	return in.act(ctx, machine, Action{ID: id, Answer: answer, By: by})
}

func (in *Inbox) act(ctx context.Context, machine string, a Action) (approvals.Request, error) {
	if err := CheckMachine(machine); err != nil {
		return approvals.Request{}, fmt.Errorf("%w: %v", approvals.ErrUnknown, err)
	}
	a.From = in.from
	b, err := json.Marshal(a)
	if err != nil {
		return approvals.Request{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, in.timeout)
	defer cancel()
	msg, err := in.request(ctx, ActionSubject(machine), b)
	if err != nil {
		return approvals.Request{}, fmt.Errorf("%w: machine %s did not answer (%v); nothing was decided", inbox.ErrUnreachable, machine, err)
	}
	var rep Reply
	if err := json.Unmarshal(msg.Data, &rep); err != nil {
		return approvals.Request{}, fmt.Errorf("machine %s's relay answered something else: %w", machine, err)
	}
	out := approvals.Request{ID: rep.ID, Status: approvals.Status(rep.Status), DecidedBy: rep.DecidedBy}
	switch {
	case rep.Error == "":
		return out, nil
	case rep.Code == "decided":
		return out, fmt.Errorf("%w: on machine %s: %s", approvals.ErrDecided, machine, rep.Error)
	case rep.Code == "unknown":
		return out, fmt.Errorf("%w: on machine %s: %s", approvals.ErrUnknown, machine, rep.Error)
	case rep.Code == "answer": // the question's own queue said what the answer must be
		why, _ := strings.CutPrefix(rep.Error, approvals.ErrBadAnswer.Error()+": ")
		return out, fmt.Errorf("%w: %s (machine %s)", approvals.ErrBadAnswer, why, machine)
	}
	return out, fmt.Errorf("machine %s refused: %s", machine, rep.Error)
}

// Changes calls fn at each change of the buckets, and every few seconds
// (a relay falling silent changes nothing in them).
func (in *Inbox) Changes(ctx context.Context, fn func() bool) error {
	for {
		in.mu.Lock()
		ch := in.changed
		in.mu.Unlock()
		if !fn() {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
		case <-time.After(5 * time.Second):
		}
	}
}

// request sends one action, again while nobody listens on its subject
// (the relay reconnecting after NATS came back), until ctx's deadline. A
// relay that got it answers once; a second copy would be refused by its
// queue as decided.
func (in *Inbox) request(ctx context.Context, subject string, b []byte) (*nats.Msg, error) {
	for {
		msg, err := in.nc.RequestWithContext(ctx, subject, b)
		if !errors.Is(err, nats.ErrNoResponders) {
			return msg, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Here reports whether machine is this one: its relay publishes this
// machine's queue, whose rules and history the page shows.
func (in *Inbox) Here(machine string) bool { return machine == in.from }

// Held is request id of this machine's queue, unmasked (a rule's
// template; inbox.Source).
func (in *Inbox) Held(id string) (approvals.Request, error) { return in.here.Get(id) }

// Viewer masks this machine's records.
func (in *Inbox) Viewer() *approvals.Viewer { return in.here.Viewer() }

// History is this machine's: another machine's history stays there.
func (in *Inbox) History(limit int, before string) (approvals.HistoryPage, error) {
	return in.here.History(limit, before)
}

// Rules, AddRule and RevokeRule are this machine's standing rules: a rule
// never crosses NATS (docs/relay.md).
func (in *Inbox) Rules() ([]approvals.Rule, error) { return in.here.Rules() }

func (in *Inbox) AddRule(r approvals.Rule) (approvals.Rule, error) { return in.here.AddRule(r) }

func (in *Inbox) RevokeRule(id string) (approvals.Rule, error) { return in.here.RevokeRule(id) }

var _ inbox.Source = (*Inbox)(nil)

// OtherChildren is each machine's children as its relay last published
// them (inbox.ChildrenElsewhere).
func (in *Inbox) OtherChildren() []inbox.MachineChildren {
	in.mu.Lock()
	defer in.mu.Unlock()
	now := time.Now()
	out := make([]inbox.MachineChildren, 0, len(in.pres))
	for m, p := range in.pres { // the key's machine, which NATS permissions scope
		if len(p.Children) == 0 {
			continue
		}
		out = append(out, inbox.MachineChildren{Machine: m, Unreachable: !p.Reachable(now), Children: p.Children})
	}
	return out
}

var _ inbox.ChildrenElsewhere = (*Inbox)(nil)

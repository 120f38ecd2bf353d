package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/inbox"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Options configure a Relay.
type Options struct {
	StateDir string
	Machine  string
	Conn     *nats.Conn // connected (Connect), reconnecting on its own
	Log      io.Writer
	// Every is the heartbeat (default 10s): presence and a full check of
	// what is published, so nothing drifts even if a wake was lost.
	Every time.Duration
	// Replicas of the buckets the relay creates (default 1).
	Replicas int
}

// Relay mirrors one machine's open requests to NATS and applies the
// decisions and answers that come back through its queue.
type Relay struct {
	o    Options
	q    *approvals.Store
	kids *children.Store
	js   jetstream.JetStream

	mu        sync.Mutex
	reqs      jetstream.KeyValue
	machines  jetstream.KeyValue
	published map[string]string // id -> the Entry's JSON last put
	kidsSent  []byte            // the children's summary last put
	full      bool              // resync everything at the next sync
	failing   string            // the last NATS error logged, "" none

	resync chan struct{}
	syncs  atomic.Int64 // how many syncs ran (the idle test counts them)

	reconnected atomic.Bool                        // resync whole at the next sync
	inFlight    atomic.Pointer[context.CancelFunc] // ends the sync in flight
}

// New makes a relay; Run starts it.
func New(o Options) (*Relay, error) {
	if err := CheckMachine(o.Machine); err != nil {
		return nil, err
	}
	if o.Conn == nil || o.StateDir == "" {
		return nil, errors.New("relay: no NATS connection or no state dir")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Every <= 0 {
		o.Every = 10 * time.Second
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	js, err := jetstream.New(o.Conn)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	q := approvals.New(o.StateDir)
	// The heartbeat checks everything anyway: the queue's own re-check
	// need not wake more often.
	q.Poll = o.Every
	return &Relay{o: o, q: q, kids: children.New(o.StateDir), js: js, published: map[string]string{}, full: true,
		resync: make(chan struct{}, 1)}, nil
}

func (r *Relay) logf(format string, a ...any) {
	fmt.Fprintf(r.o.Log, "relay: "+format+"\n", a...)
}

// Reconnected tells the relay NATS came back: it resyncs everything (a
// server restarted without its store has lost the buckets). Connect wires
// it; call it from a nats.ReconnectHandler otherwise.
func (r *Relay) Reconnected() {
	// Not under r.mu: a sync in flight holds it while it waits on the old
	// connection's replies. It is cut short instead, and the next one
	// starts at once.
	r.reconnected.Store(true)
	if cancel := r.inFlight.Load(); cancel != nil {
		(*cancel)()
	}
	select {
	case r.resync <- struct{}{}:
	default:
	}
}

// Run relays until ctx ends: it answers actions on ActionSubject, and
// publishes the open requests at start, at each change of the queue
// (inotify on Linux: nothing runs while nothing changes) and at each
// heartbeat. At the end it marks the machine offline.
func (r *Relay) Run(ctx context.Context) error {
	sub, err := r.o.Conn.Subscribe(ActionSubject(r.o.Machine), r.handle)
	if err != nil {
		return fmt.Errorf("relay: subscribing to %s: %w", ActionSubject(r.o.Machine), err)
	}
	defer sub.Unsubscribe()
	w, err := r.q.Watch()
	if err != nil {
		return err
	}
	defer w.Close()
	wake := make(chan struct{}, 1)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for wctx.Err() == nil {
			// Poll bounds nothing here: the heartbeat re-checks.
			if w.Wait(wctx, time.Hour) == nil {
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}
	}()
	tick := time.NewTicker(r.o.Every)
	defer tick.Stop()
	// After a failure, retry soon (doubling up to the heartbeat): a
	// bucket being made by another relay at the same moment, a server
	// coming back.
	var retry <-chan time.Time
	backoff := time.Second
	beat := true
	for {
		if r.sync(ctx, beat) {
			retry, backoff = nil, time.Second
		} else {
			retry = time.After(backoff)
			backoff = min(2*backoff, r.o.Every)
		}
		beat = false
		select {
		case <-ctx.Done():
			r.goodbye()
			return nil
		case <-wake:
		case <-r.resync:
		case <-retry:
		case <-tick.C:
			beat = true
		}
	}
}

// sync publishes what is open now and deletes what no longer is; beat
// also puts the presence. After a reconnect or a failure it rebuilds the
// buckets' view of this machine whole. It reports success.
func (r *Relay) sync(ctx context.Context, beat bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.syncs.Add(1)
	if r.reconnected.Swap(false) {
		r.full = true
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r.inFlight.Store(&cancel)
	defer r.inFlight.Store(nil)
	err := r.syncLocked(ctx, beat || r.full)
	if err != nil {
		r.full = true
		if msg := err.Error(); msg != r.failing {
			r.failing = msg
			r.logf("%s (retrying)", approvals.Visible(msg))
		}
		return false
	}
	if r.failing != "" {
		r.logf("publishing again")
		r.failing = ""
	}
	return true
}

func (r *Relay) syncLocked(ctx context.Context, beat bool) error {
	if err := r.buckets(ctx); err != nil {
		return err
	}
	open, err := r.q.Pending() // open/ only: costs what is open, not the history
	if err != nil {
		return err
	}
	open = r.q.Viewer().Requests(open)
	names := r.childNames(open)
	now := map[string]string{}
	for _, q := range open {
		b, err := json.Marshal(Entry{Machine: r.o.Machine, Child: names[q.Chat], Request: wire(q)})
		if err != nil {
			return err
		}
		now[q.ID] = string(b)
	}
	if r.full {
		if err := r.forgetOthers(ctx, now); err != nil {
			return err
		}
		r.published = map[string]string{}
	}
	changed := false
	for id, b := range now {
		if r.published[id] == b {
			continue
		}
		changed = true
		if _, err := r.reqs.Put(ctx, requestKey(r.o.Machine, id), []byte(b)); err != nil {
			return fmt.Errorf("publishing request %s: %w", id, err)
		}
		r.published[id] = b
	}
	for id := range r.published {
		if _, ok := now[id]; ok {
			continue
		}
		if err := r.reqs.Delete(ctx, requestKey(r.o.Machine, id)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("withdrawing request %s: %w", id, err)
		}
		delete(r.published, id)
		changed = true
	}
	// The children's summary is read at a heartbeat and when what waits
	// changed (a chat's waiting count, its state): not at a wake that
	// changed nothing (without inotify the queue's watch polls).
	if beat || r.full || changed {
		kids, err := inbox.ChildrenJSON(r.o.StateDir, open)
		if err != nil {
			return fmt.Errorf("the children's summary: %w", err)
		}
		if beat || r.full || !bytes.Equal(kids, r.kidsSent) {
			if err := r.putPresence(ctx, false, kids); err != nil {
				return err
			}
			r.kidsSent = kids
		}
	}
	r.full = false
	return nil
}

// buckets opens (creating where missing) the two buckets.
func (r *Relay) buckets(ctx context.Context) error {
	if r.reqs != nil && !r.full {
		return nil
	}
	var err error
	r.reqs, err = r.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: RequestsBucket, History: 1,
		Storage: jetstream.FileStorage, Replicas: r.o.Replicas,
		Description: "interceptor: every machine's open approval requests (key machine.id)"})
	if err != nil {
		r.reqs = nil
		return fmt.Errorf("bucket %s: %w", RequestsBucket, err)
	}
	r.machines, err = r.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: MachinesBucket, History: 1,
		Storage: jetstream.FileStorage, Replicas: r.o.Replicas,
		Description: "interceptor: each relay's heartbeat (key machine)"})
	if err != nil {
		r.reqs = nil
		return fmt.Errorf("bucket %s: %w", MachinesBucket, err)
	}
	return nil
}

// forgetOthers deletes this machine's keys that are not open now: what
// was withdrawn while NATS was down, or before the relay restarted. An
// expired request is thus never shown again.
func (r *Relay) forgetOthers(ctx context.Context, now map[string]string) error {
	l, err := r.reqs.ListKeysFiltered(ctx, requestKey(r.o.Machine, "*"))
	if err != nil {
		return fmt.Errorf("listing %s: %w", RequestsBucket, err)
	}
	var stale []string
	for k := range l.Keys() {
		if _, ok := now[strings.TrimPrefix(k, r.o.Machine+".")]; !ok {
			stale = append(stale, k)
		}
	}
	for _, k := range stale {
		if err := r.reqs.Delete(ctx, k); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("withdrawing %s: %w", k, err)
		}
	}
	return nil
}

// childNames maps the chats of rs to their children's names.
func (r *Relay) childNames(rs []approvals.Request) map[string]string {
	names := map[string]string{}
	for _, q := range rs {
		if q.Chat == "" {
			continue
		}
		if _, ok := names[q.Chat]; ok {
			continue
		}
		names[q.Chat] = ""
		if id, _, err := children.ParseChatID(q.Chat); err == nil {
			if c, err := r.kids.Get(id); err == nil {
				names[q.Chat] = approvals.Visible(c.Name)
			}
		}
	}
	return names
}

// putPresence writes the heartbeat, with the children's summary.
func (r *Relay) putPresence(ctx context.Context, offline bool, kids []byte) error {
	p := Presence{Machine: r.o.Machine, At: time.Now(), EveryMS: r.o.Every.Milliseconds(), Offline: offline, Children: kids}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := r.machines.Put(ctx, r.o.Machine, b); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}

// goodbye marks the machine offline (best effort): its requests stay
// listed, shown as unreachable.
func (r *Relay) goodbye() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.machines == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r.putPresence(ctx, true, r.kidsSent)
}

// maxBy bounds the decider's name an action brings.
const maxBy = 300

// handle applies one action through the queue: Decide or AnswerInput,
// with their rules (a request decided, answered or expired meanwhile is
// refused, and the reply says so).
func (r *Relay) handle(m *nats.Msg) {
	var a Action
	reply := func(rep Reply) {
		b, _ := json.Marshal(rep)
		m.Respond(b)
	}
	if err := json.Unmarshal(m.Data, &a); err != nil || a.ID == "" || (a.Allow == nil) == (a.Answer == "") {
		reply(Reply{ID: a.ID, Code: "bad", Error: "want an id and either allow or an answer"})
		return
	}
	by := r.decidedBy(a)
	var req approvals.Request
	var err error
	if a.Allow != nil {
		req, err = r.q.Decide(a.ID, hooks.Decision{Allow: *a.Allow, Reason: a.Reason, UpdatedInput: a.UpdatedInput, By: by})
	} else {
		req, err = r.q.AnswerInput(a.ID, a.Answer, by)
	}
	rep := Reply{ID: a.ID, Status: string(req.Status), DecidedBy: approvals.Visible(req.DecidedBy)}
	if err != nil {
		rep.Error, rep.Code = approvals.Visible(err.Error()), "bad"
		switch {
		case errors.Is(err, approvals.ErrDecided):
			rep.Code = "decided"
		case errors.Is(err, approvals.ErrUnknown):
			rep.Code = "unknown"
		case errors.Is(err, approvals.ErrBadAnswer):
			rep.Code = "answer"
		}
		r.logf("%s on %s: refused: %s", a.ID, approvals.Visible(a.From), rep.Error)
	}
	reply(rep)
	select {
	case r.resync <- struct{}{}: // withdraw it now, not at the watch's wake
	default:
	}
}

// decidedBy is the record's decided_by: who (as the inbox names itself),
// on which machine, through this relay.
func (r *Relay) decidedBy(a Action) string {
	by, from := cut(approvals.Visible(a.By), maxBy), cut(approvals.Visible(a.From), 64)
	if from == "" {
		from = "?"
	}
	return fmt.Sprintf("%s on machine %s, through NATS (relay of %s)", by, from, r.o.Machine)
}

// cut is s cut to n bytes on a rune boundary, marked.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

package relay

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/inbox"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/tidwall/gjson"
)

// startNATS runs an embedded server with JetStream on loopback (port 0:
// any free one), its store in dir.
func startNATS(t testing.TB, dir string, port int) *server.Server {
	t.Helper()
	if port == 0 {
		port = -1
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir,
		NoLog: true, NoSigs: true, ServerName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s
}

func natsURL(s *server.Server) string { return "nats://" + s.Addr().String() }

func natsPort(s *server.Server) int { return s.Addr().(*net.TCPAddr).Port }

// machine is one machine of a test: its state dir, its queue, its relay.
type machine struct {
	name  string
	dir   string
	q     *approvals.Store
	relay *Relay
	stop  context.CancelFunc
	done  chan error
}

// startMachine runs a relay for a new state dir.
func startMachine(t testing.TB, url, name string, every time.Duration) *machine {
	t.Helper()
	m := &machine{name: name, dir: filepath.Join(t.TempDir(), name), done: make(chan error, 1)}
	m.q = approvals.New(m.dir)
	var r atomic.Pointer[Relay]
	nc, err := Connect(ConnOptions{URL: url, Name: "relay " + name, Reconnected: func() {
		if rr := r.Load(); rr != nil {
			rr.Reconnected()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	m.relay, err = New(Options{StateDir: m.dir, Machine: name, Conn: nc, Every: every})
	if err != nil {
		t.Fatal(err)
	}
	r.Store(m.relay)
	ctx, cancel := context.WithCancel(context.Background())
	m.stop = cancel
	go func() { m.done <- m.relay.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-m.done })
	return m
}

// startInbox follows the buckets as interceptor-http inbox --nats does.
func startInbox(t testing.TB, url, from string) *Inbox {
	t.Helper()
	return startInboxConn(t, ConnOptions{URL: url, Name: "inbox"}, from)
}

// requestEntry is the requests bucket's raw value under key, as anyone
// allowed to read the bucket sees it.
func requestEntry(t testing.TB, in *Inbox, key string) string {
	t.Helper()
	js, _ := jetstream.New(in.nc)
	kv, err := js.KeyValue(context.Background(), RequestsBucket)
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(e.Value())
}

// startInboxConn is startInbox over a connection made with o (credentials,
// a machine's name); the inbox is told of each reconnect.
func startInboxConn(t testing.TB, o ConnOptions, from string) *Inbox {
	t.Helper()
	var in atomic.Pointer[Inbox]
	o.Reconnected = func() {
		if i := in.Load(); i != nil {
			i.Reconnected()
		}
	}
	nc, err := Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	i, err := NewInbox(ctx, nc, from, approvals.New(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Store(i)
	return i
}

// until waits for cond over what the inbox shows.
func until(t *testing.T, in *Inbox, what string, cond func([]inbox.Open) bool) []inbox.Open {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		open, _ := in.Open(context.Background())
		if cond(open) {
			return open
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never; the inbox shows %+v", what, open)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ids(open []inbox.Open) map[string]int {
	out := map[string]int{}
	for _, o := range open {
		out[o.Machine+"/"+o.Request.ID]++
	}
	return out
}

func enqueue(t *testing.T, q *approvals.Store, session, tool, input string, deadline time.Time) approvals.Request {
	t.Helper()
	r, err := q.Enqueue(approvals.Request{Client: "claude-code", Session: session, Tool: tool, Input: input, Deadline: deadline})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Two machines' requests reach one inbox, masked: a token the machine
// holds never crosses the network, in the inbox or in the bucket's raw
// bytes. A decision from the inbox is applied by the request's own
// machine, recorded with who and where, and a second one is refused.
func TestTwoMachinesOneInbox(t *testing.T) {
	ns := startNATS(t, t.TempDir(), 0)
	lap := startMachine(t, natsURL(ns), "laptop", time.Hour)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	const tok = "wf-secret-token-0123456789abcdef"
	if err := state.New(box.dir).Put(state.Record{Token: tok, Server: "wf", Session: "S1"}); err != nil {
		t.Fatal(err)
	}
	a := enqueue(t, lap.q, "S0", "Bash", `{"command":"make test"}`, time.Now().Add(time.Minute))
	b := enqueue(t, box.q, "S1", "mcp__wf__run", `{"session_token":"`+tok+`","note":"uses `+tok+`","evil":"\u001b[2J"}`, time.Now().Add(time.Minute))
	in := startInbox(t, natsURL(ns), "desk")
	open := until(t, in, "both requests", func(o []inbox.Open) bool { return len(o) == 2 })
	got := ids(open)
	if got["laptop/"+a.ID] != 1 || got["devbox/"+b.ID] != 1 {
		t.Fatalf("the inbox shows %v", got)
	}
	for _, o := range open {
		if o.Unreachable {
			t.Errorf("%s/%s shown unreachable", o.Machine, o.Request.ID)
		}
		if o.Machine == "devbox" && (strings.Contains(o.Request.Input, tok) || strings.Contains(o.Request.Input, "\x1b")) {
			t.Errorf("the inbox got %s", o.Request.Input)
		}
	}
	// The bucket's raw bytes, as anyone allowed to read it sees them.
	if raw := requestEntry(t, in, "devbox."+b.ID); strings.Contains(raw, tok) || strings.Contains(raw, "\x1b") || !strings.Contains(raw, `\\u001b`) {
		t.Errorf("the bucket holds %s", raw)
	}

	ctx := context.Background()
	r, err := in.Decide(ctx, "devbox", b.ID, hooks.Decision{Allow: false, Reason: "not now", By: "inbox (pid 1)"})
	if err != nil || r.Status != approvals.Denied {
		t.Fatalf("deny through NATS: %+v, %v", r, err)
	}
	stored, _ := box.q.Get(b.ID)
	if stored.Status != approvals.Denied || stored.Reason != "not now" ||
		stored.DecidedBy != "inbox (pid 1) on machine desk, through NATS (relay of devbox)" {
		t.Errorf("devbox stored %+v", stored)
	}
	if _, err := in.Decide(ctx, "devbox", b.ID, hooks.Decision{Allow: true, By: "inbox"}); !errors.Is(err, approvals.ErrDecided) {
		t.Errorf("a second decision: %v, want ErrDecided", err)
	}
	// Applied on its own machine only: the laptop has no such request.
	if _, err := in.Decide(ctx, "laptop", b.ID, hooks.Decision{Allow: true, By: "inbox"}); !errors.Is(err, approvals.ErrUnknown) {
		t.Errorf("devbox's id on the laptop: %v, want ErrUnknown", err)
	}
	if s, _ := box.q.Get(b.ID); s.Status != approvals.Denied || s.DecidedBy != stored.DecidedBy {
		t.Errorf("the second decision changed the record: %+v", s)
	}
	until(t, in, "the decided one withdrawn", func(o []inbox.Open) bool {
		g := ids(o)
		return len(o) == 1 && g["laptop/"+a.ID] == 1
	})
	if _, err := in.Decide(ctx, "lap.top", a.ID, hooks.Decision{Allow: true, By: "x"}); err == nil {
		t.Error("a machine name with a dot was sent")
	}
}

// A request decided on its own machine meanwhile, or expired, is refused
// when the inbox's decision comes, and the refusal says why; an expired
// request is never published again.
func TestDecidedMeanwhileAndExpired(t *testing.T) {
	ns := startNATS(t, t.TempDir(), 0)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	in := startInbox(t, natsURL(ns), "desk")
	a := enqueue(t, box.q, "S", "Bash", `{"command":"ls"}`, time.Now().Add(time.Minute))
	stale := enqueue(t, box.q, "S", "Bash", `{"command":"rm -rf /"}`, time.Now().Add(-time.Minute))
	until(t, in, "the open one", func(o []inbox.Open) bool { return ids(o)["devbox/"+a.ID] == 1 })
	if _, err := box.q.Decide(a.ID, hooks.Decision{Allow: true, By: "cli"}); err != nil {
		t.Fatal(err)
	}
	_, err := in.Decide(context.Background(), "devbox", a.ID, hooks.Decision{Allow: false, By: "inbox"})
	if !errors.Is(err, approvals.ErrDecided) || !strings.Contains(err.Error(), "allowed (by cli)") {
		t.Errorf("deciding what the CLI decided: %v", err)
	}
	if _, err := in.Decide(context.Background(), "devbox", stale.ID, hooks.Decision{Allow: true, By: "inbox"}); !errors.Is(err, approvals.ErrDecided) {
		t.Errorf("allowing an expired request: %v", err)
	}
	if s, _ := box.q.Get(stale.ID); s.Status != approvals.Expired {
		t.Errorf("the expired request is %s", s.Status)
	}
	until(t, in, "nothing open", func(o []inbox.Open) bool { return len(o) == 0 })
}

// A relay that stops marks its machine offline: its requests stay listed,
// unreachable, and a decision for them fails at once, deciding nothing.
func TestOfflineRelayUnreachable(t *testing.T) {
	ns := startNATS(t, t.TempDir(), 0)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	in := startInbox(t, natsURL(ns), "desk")
	a := enqueue(t, box.q, "S", "Bash", `{"command":"ls"}`, time.Now().Add(time.Minute))

	until(t, in, "listed", func(o []inbox.Open) bool { return len(o) == 1 && !o[0].Unreachable })
	box.stop()
	<-box.done
	box.done <- nil // for the cleanup
	until(t, in, "unreachable", func(o []inbox.Open) bool { return len(o) == 1 && o[0].Unreachable })
	_, err := in.Decide(context.Background(), "devbox", a.ID, hooks.Decision{Allow: true, By: "inbox"})
	if !errors.Is(err, inbox.ErrUnreachable) {
		t.Errorf("deciding on a stopped relay: %v", err)
	}
	if s, _ := box.q.Get(a.ID); s.Status != approvals.Pending {
		t.Errorf("the request is %s", s.Status)
	}
}

// NATS killed mid-flight and restarted on its store: what was queued and
// decided meanwhile is published and withdrawn after the reconnect, each
// request once; a decision made before the kill is not applied twice.
func TestNATSRestart(t *testing.T) {
	store := t.TempDir()
	ns := startNATS(t, store, 0)
	port := natsPort(ns)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	in := startInbox(t, natsURL(ns), "desk")
	a := enqueue(t, box.q, "S", "Bash", `{"command":"one"}`, time.Now().Add(time.Minute))
	b := enqueue(t, box.q, "S", "Bash", `{"command":"two"}`, time.Now().Add(time.Minute))
	until(t, in, "both", func(o []inbox.Open) bool { return len(o) == 2 })
	if _, err := in.Decide(context.Background(), "devbox", a.ID, hooks.Decision{Allow: true, By: "inbox"}); err != nil {
		t.Fatal(err)
	}
	ns.Shutdown()
	ns.WaitForShutdown()
	// While NATS is down: the queue works; one decided here, one new.
	if _, err := box.q.Decide(b.ID, hooks.Decision{Allow: false, By: "cli"}); err != nil {
		t.Fatal(err)
	}
	c := enqueue(t, box.q, "S", "Bash", `{"command":"three"}`, time.Now().Add(time.Minute))
	time.Sleep(300 * time.Millisecond)
	ns2 := startNATS(t, store, port)
	open := until(t, in, "only the new one", func(o []inbox.Open) bool {
		return len(o) == 1 && ids(o)["devbox/"+c.ID] == 1 && !o[0].Unreachable
	})
	_ = open
	r, err := in.Decide(context.Background(), "devbox", c.ID, hooks.Decision{Allow: true, By: "inbox"})
	if err != nil || r.Status != approvals.Allowed {
		t.Fatalf("deciding after the restart: %+v %v", r, err)
	}
	if s, _ := box.q.Get(a.ID); s.Status != approvals.Allowed || !strings.Contains(s.DecidedBy, "through NATS") {
		t.Errorf("the first is %+v", s)
	}
	if s, _ := box.q.Get(b.ID); s.Status != approvals.Denied || s.DecidedBy != "cli" {
		t.Errorf("the second is %+v", s)
	}
	until(t, in, "nothing open", func(o []inbox.Open) bool { return len(o) == 0 })
	// The bucket holds nothing of the closed ones.
	js, _ := jetstream.New(in.nc)
	kv, _ := js.KeyValue(context.Background(), RequestsBucket)
	keys, _ := kv.Keys(context.Background())
	if len(keys) != 0 {
		t.Errorf("the bucket still holds %v", keys)
	}
	_ = ns2
}

// An idle relay does nothing: one sync at start, none while the queue
// does not change, one per change.
func TestIdleRelaySleeps(t *testing.T) {
	ns := startNATS(t, t.TempDir(), 0)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	in := startInbox(t, natsURL(ns), "desk")
	<-in.Loaded()
	time.Sleep(200 * time.Millisecond)
	start := box.relay.syncs.Load()
	time.Sleep(1500 * time.Millisecond)
	if n := box.relay.syncs.Load() - start; n != 0 {
		t.Errorf("an idle relay synced %d times in 1.5 s", n)
	}
	enqueue(t, box.q, "S", "Bash", `{"command":"ls"}`, time.Now().Add(time.Minute))
	until(t, in, "the request", func(o []inbox.Open) bool { return len(o) == 1 })
	if n := box.relay.syncs.Load() - start; n < 1 || n > 3 {
		t.Errorf("one request made %d syncs", n)
	}
}

// A NATS server that comes back without its store (a memory-only or wiped
// one) has lost the buckets: the relay makes them again and publishes
// what is open at the reconnect, not at the next change of its queue.
func TestNATSLosesItsStore(t *testing.T) {
	ns := startNATS(t, t.TempDir(), 0)
	port := natsPort(ns)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	in := startInbox(t, natsURL(ns), "desk")
	a := enqueue(t, box.q, "S", "Bash", `{"command":"one"}`, time.Now().Add(time.Minute))
	until(t, in, "listed", func(o []inbox.Open) bool { return len(o) == 1 })
	ns.Shutdown()
	ns.WaitForShutdown()
	ns2 := startNATS(t, t.TempDir(), port)
	nc, err := nats.Connect(natsURL(ns2))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	deadline := time.Now().Add(15 * time.Second)
	for {
		kv, err := js.KeyValue(context.Background(), RequestsBucket)
		if err == nil {
			if _, err = kv.Get(context.Background(), "devbox."+a.ID); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay never published %s again: %v", a.ID, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	until(t, in, "listed again", func(o []inbox.Open) bool { return ids(o)["devbox/"+a.ID] == 1 && len(o) == 1 && !o[0].Unreachable })
	if r, err := in.Decide(context.Background(), "devbox", a.ID, hooks.Decision{Allow: true, By: "inbox"}); err != nil || r.Status != approvals.Allowed {
		t.Fatalf("deciding after the restart: %+v %v", r, err)
	}
}

// A human tool's question is answered through NATS as `approvals answer`
// answers it: once; allow or deny is refused for it, and an answer for an
// approval.
func TestAnswerThroughNATS(t *testing.T) {
	ns := startNATS(t, t.TempDir(), 0)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	in := startInbox(t, natsURL(ns), "desk")
	q, err := box.q.Enqueue(approvals.Request{Client: "claude-code", Session: "S", Tool: "request_access", Input: `{"what":"prod"}`,
		Kind: approvals.KindInput, Mode: approvals.ModeHold, Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	open := until(t, in, "the question", func(o []inbox.Open) bool { return len(o) == 1 })
	if open[0].Request.Kind != approvals.KindInput {
		t.Errorf("the question shows as %+v", open[0].Request)
	}
	ctx := context.Background()
	if _, err := in.Decide(ctx, "devbox", q.ID, hooks.Decision{Allow: true, By: "inbox"}); err == nil {
		t.Error("a question was allowed")
	}
	r, err := in.Answer(ctx, "devbox", q.ID, "read-only, for an hour", "inbox (pid 2)")
	if err != nil || r.Status != approvals.Answered {
		t.Fatalf("answer: %+v %v", r, err)
	}
	if s, _ := box.q.Get(q.ID); s.Answer != "read-only, for an hour" || !strings.HasSuffix(s.DecidedBy, "on machine desk, through NATS (relay of devbox)") {
		t.Errorf("stored %+v", s)
	}
	if _, err := in.Answer(ctx, "devbox", q.ID, "again", "inbox"); !errors.Is(err, approvals.ErrDecided) {
		t.Errorf("a second answer: %v", err)
	}
	until(t, in, "withdrawn", func(o []inbox.Open) bool { return len(o) == 0 })
}

// A question's answerSchema crosses the wire, masked like its input (a
// held token never does), so the other machine's page offers its choices;
// an answer through NATS that does not fit is refused by the question's
// own queue, ErrBadAnswer in one line naming the machine, and the question
// still waits; one that fits is taken.
func TestAnswerSchemaThroughNATS(t *testing.T) {
	ns := startNATS(t, t.TempDir(), 0)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	in := startInbox(t, natsURL(ns), "desk")
	const tok = "wf-secret-token-0123456789abcdef"
	if err := state.New(box.dir).Put(state.Record{Token: tok, Server: "wf", Session: "S"}); err != nil {
		t.Fatal(err)
	}
	q, err := box.q.Enqueue(approvals.Request{Client: "claude-code", Session: "S", Tool: "pick_env", Input: `{}`,
		Kind: approvals.KindInput, Mode: approvals.ModeHold, Deadline: time.Now().Add(time.Minute),
		AnswerSchema: `{"type":"string","enum":["staging","prod"],"description":"not ` + tok + `"}`})
	if err != nil {
		t.Fatal(err)
	}
	open := until(t, in, "the question", func(o []inbox.Open) bool { return len(o) == 1 })
	schema := gjson.Parse(open[0].Request.AnswerSchema)
	if schema.Get("enum").Raw != `["staging","prod"]` || strings.Contains(open[0].Request.AnswerSchema, tok) {
		t.Errorf("the inbox got the answerSchema %q", open[0].Request.AnswerSchema)
	}
	if raw := requestEntry(t, in, "devbox."+q.ID); strings.Contains(raw, tok) || !strings.Contains(raw, `"answer_schema"`) {
		t.Errorf("the bucket holds %s", raw)
	}

	ctx := context.Background()
	_, err = in.Answer(ctx, "devbox", q.ID, "Prod", "inbox")
	if !errors.Is(err, approvals.ErrBadAnswer) ||
		err.Error() != "answer refused: the answer must be one of: staging, prod (machine devbox)" {
		t.Errorf("an answer that does not fit: %v", err)
	}
	if s, _ := box.q.Get(q.ID); s.Status != approvals.Pending || s.Answer != "" {
		t.Fatalf("a refused answer changed the question: %+v", s)
	}
	until(t, in, "still listed", func(o []inbox.Open) bool { return len(o) == 1 })
	if r, err := in.Answer(ctx, "devbox", q.ID, "prod", "inbox"); err != nil || r.Status != approvals.Answered {
		t.Fatalf("a fitting answer: %+v %v", r, err)
	}
	if s, _ := box.q.Get(q.ID); s.Answer != "prod" {
		t.Errorf("stored %+v", s)
	}
}

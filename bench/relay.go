//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/inbox"
	"github.com/interceptor-dev/interceptor/internal/relay"
	"github.com/nats-io/nats-server/v2/server"
)

// The relay phase (issue 34 item 6): one inbox for many machines over
// NATS, side by side with the local inbox.
//
//   - latency: a request queued on machine A, until B's inbox Source (what
//     the page reads) lists it, over loopback NATS; the local inbox's
//     Source on the same queue's machine beside it.
//   - idle: the CPU a relay process uses over a window with nothing to do
//     (its heartbeat only), beside a Go process that only sleeps.
//   - scale: GET /api/pending of `interceptor-http inbox --nats` with N
//     requests waiting across 10 machines, beside a local inbox with N.
//
// Everything runs on this machine: an embedded NATS server on 127.0.0.1.

type relayResult struct {
	localLat, natsLat       []time.Duration
	idleWindow              time.Duration
	idleCPU, floorCPU       time.Duration
	machines, waiting       int
	localPend, natsPend     []time.Duration
	localBytes, natsBytes   int
	publishAll              time.Duration // the N requests queued until the NATS inbox listed them all
	enqueueAll              time.Duration // of which queueing them (one after another, in this process)
	latSamples, pendSamples int
	localRender, natsRender []time.Duration // the page's first render, every card drawn and laid out
	renderSkipped           string          // why it was not measured
}

// relayChild is the bench re-run as an idle relay (-relay-child URL DIR)
// or an idle Go process (-idle-floor), for the idle phase.
func relayChild(args []string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if len(args) == 0 {
		<-ctx.Done() // the floor: a Go runtime that waits
		return
	}
	nc, err := relay.Connect(relay.ConnOptions{URL: args[0], Name: "bench idle relay"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r, err := relay.New(relay.Options{StateDir: args[1], Machine: "idle", Conn: nc}) // the default heartbeat
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r.Run(ctx)
}

func benchRelay(cfg *config) (*relayResult, error) {
	began := time.Now()
	defer func() { progress("relay: done in %s", time.Since(began).Round(time.Second)) }()
	res := &relayResult{machines: 10, waiting: 1000, latSamples: 200, pendSamples: 30, idleWindow: 30 * time.Second}
	if cfg.smoke {
		res.waiting, res.latSamples, res.pendSamples, res.idleWindow = 100, 10, 3, 2*time.Second
	}
	dir := filepath.Join(cfg.workDir, "relay")
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: filepath.Join(dir, "nats"),
		NoLog: true, NoSigs: true, ServerName: "bench"})
	if err != nil {
		return nil, err
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		return nil, errors.New("the embedded NATS server did not start")
	}
	defer ns.Shutdown()
	url := "nats://" + ns.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	progress("relay: latency, %d requests each way", res.latSamples)
	if err := res.latency(ctx, url, dir); err != nil {
		return nil, err
	}
	progress("relay: an idle relay's CPU over %s", res.idleWindow)
	if err := res.idle(url, dir); err != nil {
		return nil, err
	}
	progress("relay: %d requests waiting across %d machines", res.waiting, res.machines)
	if err := res.scale(ctx, url, dir, cfg.smoke, cfg.workDir); err != nil {
		return nil, err
	}
	return res, nil
}

// startRelay runs a relay of machine name on stateDir until ctx ends.
func startRelay(ctx context.Context, url, stateDir, name string) error {
	nc, err := relay.Connect(relay.ConnOptions{URL: url, Name: "bench " + name})
	if err != nil {
		return err
	}
	r, err := relay.New(relay.Options{StateDir: stateDir, Machine: name, Conn: nc})
	if err != nil {
		return err
	}
	go func() { r.Run(ctx); nc.Close() }()
	return nil
}

// natsInbox is the page's source of every machine, as inbox --nats makes
// it, once it has read the buckets.
func natsInbox(ctx context.Context, url, deskDir string) (*relay.Inbox, error) {
	nc, err := relay.Connect(relay.ConnOptions{URL: url, Name: "bench inbox"})
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, nc.Close)
	in, err := relay.NewInbox(ctx, nc, "desk", approvals.New(deskDir), nil)
	if err != nil {
		return nil, err
	}
	for range 100 { // the buckets exist once a relay has started
		select {
		case <-in.Loaded():
			return in, nil
		case <-time.After(100 * time.Millisecond):
			in.Reconnected()
		}
	}
	return nil, errors.New("the NATS inbox never read the buckets")
}

// seen is how long from just before q.Enqueue until src lists the
// request, woken by src.Changes as the page's stream is.
func seen(ctx context.Context, q *approvals.Store, src inbox.Source) (time.Duration, error) {
	t0 := time.Now()
	r, err := q.Enqueue(approvals.Request{Client: hooks.ClaudeCodeClient.Name, Session: "bench", Tool: "Bash", Input: `{"command":"make"}`,
		Deadline: time.Now().Add(time.Hour)})
	if err != nil {
		return 0, err
	}
	var took time.Duration
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	src.Changes(wctx, func() bool {
		open, _ := src.Open(wctx)
		for _, o := range open {
			if o.Request.ID == r.ID {
				took = time.Since(t0)
				return false
			}
		}
		return true
	})
	if took == 0 {
		return 0, fmt.Errorf("request %s was not listed within 10 s", r.ID)
	}
	// Decided, so the next round's list is as short as this one's.
	_, err = q.Decide(r.ID, hooks.Decision{Allow: true, By: "bench"})
	return took, err
}

func (res *relayResult) latency(ctx context.Context, url, dir string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a, desk, local := filepath.Join(dir, "lat-a"), filepath.Join(dir, "lat-desk"), filepath.Join(dir, "lat-local")
	qa, ql := approvals.New(a), approvals.New(local)
	for _, q := range []*approvals.Store{qa, ql} {
		if _, err := q.Pending(); err != nil { // makes the dirs
			return err
		}
	}
	if err := startRelay(ctx, url, a, "a"); err != nil {
		return err
	}
	in, err := natsInbox(ctx, url, desk)
	if err != nil {
		return err
	}
	loc := inbox.Local(ql)
	for i := range 2 * res.latSamples {
		// Interleaved, so load on the machine falls on both alike.
		if i%2 == 0 {
			d, err := seen(ctx, qa, in)
			if err != nil {
				return fmt.Errorf("over NATS: %w", err)
			}
			res.natsLat = append(res.natsLat, d)
		} else {
			d, err := seen(ctx, ql, loc)
			if err != nil {
				return fmt.Errorf("local: %w", err)
			}
			res.localLat = append(res.localLat, d)
		}
	}
	return nil
}

func (res *relayResult) idle(url, dir string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	state := filepath.Join(dir, "idle")
	if _, err := approvals.New(state).Pending(); err != nil {
		return err
	}
	var cmds []*exec.Cmd
	for _, args := range [][]string{{"-relay-child", url, state}, {"-idle-floor"}} {
		c := exec.Command(self, args...)
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			return err
		}
		defer func() { c.Process.Signal(syscall.SIGTERM); c.Wait() }()
		cmds = append(cmds, c)
	}
	time.Sleep(2 * time.Second) // start-up and the first publication are not idle
	r0, f0 := procCPU(cmds[0].Process.Pid), procCPU(cmds[1].Process.Pid)
	time.Sleep(res.idleWindow)
	res.idleCPU = procCPU(cmds[0].Process.Pid) - r0
	res.floorCPU = procCPU(cmds[1].Process.Pid) - f0
	for _, c := range cmds {
		if c.ProcessState != nil || syscall.Kill(c.Process.Pid, 0) != nil {
			return errors.New("an idle process ended during its window")
		}
	}
	return nil
}

func (res *relayResult) scale(ctx context.Context, url, dir string, smoke bool, workDir string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	local := filepath.Join(dir, "scale-local")
	per := res.waiting / res.machines
	qs := []*approvals.Store{approvals.New(local)}
	for m := range res.machines {
		md := filepath.Join(dir, fmt.Sprintf("scale-m%d", m))
		if err := startRelay(ctx, url, md, fmt.Sprintf("m%d", m)); err != nil {
			return err
		}
		qs = append(qs, approvals.New(md))
	}
	in, err := natsInbox(ctx, url, filepath.Join(dir, "scale-desk"))
	if err != nil {
		return err
	}
	enqueue := func(q *approvals.Store, i int) error {
		_, err := q.Enqueue(approvals.Request{Client: hooks.ClaudeCodeClient.Name, Session: "bench", Tool: "Bash",
			Input: fmt.Sprintf(`{"command":"make test-%d"}`, i), Deadline: time.Now().Add(time.Hour)})
		return err
	}
	for i := range res.waiting {
		if err := enqueue(qs[0], i); err != nil {
			return err
		}
	}
	t0 := time.Now()
	for i := range res.waiting {
		if err := enqueue(qs[1+i/per], i); err != nil {
			return err
		}
	}
	res.enqueueAll = time.Since(t0)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if open, _ := in.Open(ctx); len(open) == res.waiting {
			break
		}
		if time.Now().After(deadline) {
			open, _ := in.Open(ctx)
			return fmt.Errorf("the NATS inbox lists %d of %d requests after 2 minutes", len(open), res.waiting)
		}
	}
	res.publishAll = time.Since(t0)
	var pages [2]*pageClient
	var urls [2]string
	for i, o := range []inbox.Options{{StateDir: local}, {StateDir: filepath.Join(dir, "scale-desk"), Source: in}} {
		s, err := inbox.Listen(o)
		if err != nil {
			return err
		}
		go s.Serve(ctx)
		urls[i] = s.URL()
		if pages[i], err = newPageClient(s.URL()); err != nil {
			return err
		}
	}
	for range res.pendSamples {
		for i, p := range pages {
			d, n, items, err := p.pending()
			if err != nil {
				return err
			}
			if items != res.waiting {
				return fmt.Errorf("/api/pending listed %d requests, want %d", items, res.waiting)
			}
			if i == 0 {
				res.localPend, res.localBytes = append(res.localPend, d), n
			} else {
				res.natsPend, res.natsBytes = append(res.natsPend, d), n
			}
		}
	}
	if smoke {
		res.renderSkipped = "not in smoke"
		return nil
	}
	return res.firstRender(ctx, urls, 5, workDir)
}

// pageClient is the inbox page's script, in Go: the handshake (proofs of
// the key from the URL's fragment), then API calls with the session.
type pageClient struct {
	base, origin, session string
}

func newPageClient(pageURL string) (*pageClient, error) {
	link, frag, _ := strings.Cut(pageURL, "#key=")
	key, err := hex.DecodeString(frag)
	if err != nil {
		return nil, fmt.Errorf("the inbox URL's key: %w", err)
	}
	p := &pageClient{base: strings.TrimSuffix(link, "/"), origin: strings.TrimSuffix(link, "/")}
	nonce := make([]byte, 32)
	rand.Read(nonce)
	cn := hex.EncodeToString(nonce)
	var hello struct {
		ServerNonce string `json:"server_nonce"`
		Proof       string `json:"proof"`
	}
	if err := p.post("/api/hello", map[string]string{"client_nonce": cn}, &hello); err != nil {
		return nil, err
	}
	sig := func(role string) string {
		h := hmac.New(sha256.New, key)
		fmt.Fprintf(h, "interceptor inbox v1 %s\n%s\n%s\n%s", role, p.origin, cn, hello.ServerNonce)
		return hex.EncodeToString(h.Sum(nil))
	}
	if hello.Proof != sig("server") {
		return nil, errors.New("the inbox's proof of its key is wrong")
	}
	var sess struct {
		Session string `json:"session"`
	}
	if err := p.post("/api/session", map[string]string{"server_nonce": hello.ServerNonce, "proof": sig("client")}, &sess); err != nil {
		return nil, err
	}
	p.session = sess.Session
	return p, nil
}

func (p *pageClient) post(path string, body, out any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", p.base+path, bytes.NewReader(b))
	req.Header.Set("Origin", p.origin)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if p.session != "" {
		req.Header.Set("X-Inbox-Session", p.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s %s", path, resp.Status, rb)
	}
	return json.Unmarshal(rb, out)
}

// pending is one GET /api/pending: its time (request to the body read
// whole), its size and how many requests it lists.
func (p *pageClient) pending() (time.Duration, int, int, error) {
	req, _ := http.NewRequest("GET", p.base+"/api/pending", nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("X-Inbox-Session", p.session)
	t0 := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(t0)
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0, 0, 0, fmt.Errorf("/api/pending: %s %v %.200s", resp.Status, err, b)
	}
	var v struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, 0, 0, err
	}
	return took, len(b), len(v.Items), nil
}

func (r *report) writeRelay(w io.Writer) {
	res := r.relay
	if res == nil {
		return
	}
	q := func(xs []time.Duration, p float64) time.Duration { return quantile(sortedDur(slices.Clone(xs)), p) }
	fmt.Fprintf(w, "## One inbox for many machines (NATS, issue 34)\n\n")
	fmt.Fprintf(w, "An embedded NATS server on 127.0.0.1; relays and inboxes in this process unless said.\n\n")
	fmt.Fprintf(w, "| what | local inbox | over NATS | NATS / local |\n|---|---|---|---|\n")
	fmt.Fprintf(w, "| a request queued until another machine's inbox Source lists it (%d each, interleaved): p50 | %s ms | %s ms | %.1fx |\n",
		res.latSamples, ms(q(res.localLat, 0.5)), ms(q(res.natsLat, 0.5)), ratio(q(res.natsLat, 0.5), q(res.localLat, 0.5)))
	fmt.Fprintf(w, "| the same: p99 | %s ms | %s ms | %.1fx |\n", ms(q(res.localLat, 0.99)), ms(q(res.natsLat, 0.99)),
		ratio(q(res.natsLat, 0.99), q(res.localLat, 0.99)))
	fmt.Fprintf(w, "| GET /api/pending, %d requests waiting (NATS: across %d machines), median of %d | %s ms | %s ms | %.1fx |\n",
		res.waiting, res.machines, res.pendSamples, ms(q(res.localPend, 0.5)), ms(q(res.natsPend, 0.5)), ratio(q(res.natsPend, 0.5), q(res.localPend, 0.5)))
	fmt.Fprintf(w, "| the same: worst | %s ms | %s ms | |\n", ms(q(res.localPend, 1)), ms(q(res.natsPend, 1)))
	fmt.Fprintf(w, "| its body | %d KiB | %d KiB | |\n", res.localBytes/1024, res.natsBytes/1024)
	if len(res.natsRender) > 0 {
		fmt.Fprintf(w, "| the page's first render in headless Chromium, every one of the %d cards drawn and laid out, median of %d | %s ms | %s ms | %.1fx |\n",
			res.waiting, len(res.natsRender), ms(q(res.localRender, 0.5)), ms(q(res.natsRender, 0.5)), ratio(q(res.natsRender, 0.5), q(res.localRender, 0.5)))
	} else {
		fmt.Fprintf(w, "| the page's first render | not measured: %s | | |\n", res.renderSkipped)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- the %d requests, queued on %d machines one after another (%s for the queueing alone), were all listed by the NATS inbox %s after the first was queued\n",
		res.waiting, res.machines, res.enqueueAll.Round(time.Millisecond), res.publishAll.Round(time.Millisecond))
	fmt.Fprintf(w, "- an idle relay process (heartbeat 10 s) used %s ms of CPU over %s; a Go process that only waits, %s ms (/proc/PID/task/*/schedstat)\n\n",
		ms(res.idleCPU), res.idleWindow, ms(res.floorCPU))
	r.judge("issue 34: a request on one machine listed on another's inbox, p99 over loopback NATS <= 200 ms", q(res.natsLat, 0.99) <= 200*time.Millisecond,
		"%s ms", ms(q(res.natsLat, 0.99)))
	// "No measurable CPU": no more than a Go process that only waits, give
	// or take 0.1% of one core.
	r.judge("issue 34: an idle relay's CPU beyond a waiting Go process's <= 0.1% of a core", res.idleCPU-res.floorCPU <= res.idleWindow/1000,
		"%s ms vs %s ms over %s", ms(res.idleCPU), ms(res.floorCPU), res.idleWindow)
}

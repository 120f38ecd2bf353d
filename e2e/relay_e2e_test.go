//go:build e2e

package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/internal/verify"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
)

// One inbox for two machines (issue 34, docs/relay.md): a real NATS
// server (Debian's nats-server, else one built from the Go module) with
// JetStream on a store dir; two machines, each a state dir with its own
// fake model, token server and a real Claude Code child, and its own
// `interceptor-http relay`; one `interceptor-http inbox --nats` page in
// Chromium. Every request of both children shows on the page, its card
// naming its machine; clicks allow each machine's calls and deny its
// next_step "two", through NATS. NATS is killed (SIGKILL) after the first
// decision and restarted on its store two seconds later, while the
// children go on asking (a request queued during the outage is required).
// The checks: each request is shown, decided once,
// through NATS, by the page on machine "desk", on its own machine; each
// token server ran exactly the allowed calls, once; each child's model
// read its deny's reason; no token shows on the page.
//
// Each machine (its relay, its child and the child's MCP servers, its fake
// model) runs in its own network namespace, linked to the suite's (the
// hub: NATS, the inbox, Chromium) by a veth pair (netns_e2e_test.go). The
// NATS server listens on the hub's link address only. Before the children
// start, the test dials across: each machine reaches NATS over its link
// and its own model on its loopback, and neither the other machine's
// model (on the other's loopback or link address) nor, from the hub, a
// machine's model. So each child, which reaches its model, runs in its
// machine's namespace; each relay is checked there when it starts.
func TestRelayTwoMachines(t *testing.T) {
	hubNet(t)
	ns := startNATSServer(t, hubAddr)
	type machine struct {
		name  string
		net   *netns
		sc    *scenario
		q     *approvals.Store
		chat  string
		model string // host:port on its loopback
	}
	var ms []*machine
	for i, name := range []string{"alpha", "beta"} {
		mn := newNetns(t, name, 2+i)
		sc, _, env, mcp := newChildScenarioIn(t, childClaude, mn)
		m := &machine{name: name, net: mn, sc: sc, q: approvals.New(sc.stateDir), model: strings.TrimPrefix(sc.baseURL, "http://")}
		startRelay(t, sc, mn, ns.url, name)
		cs := testChildren(sc)
		createChild(t, sc, cs, childClaude, "fixer-"+name, env, mcp)
		ms = append(ms, m)
	}
	for i, m := range ms {
		other := ms[1-i]
		if err := dialFrom(m.net, m.model); err != nil {
			t.Fatalf("machine %s cannot reach its own model at %s: %v", m.name, m.model, err)
		}
		if err := dialFrom(m.net, ns.hostPort()); err != nil {
			t.Fatalf("machine %s cannot reach NATS over its link at %s: %v", m.name, ns.hostPort(), err)
		}
		mustNotReach(t, m.net, net.JoinHostPort("127.0.0.1", fmt.Sprint(ns.port)), "NATS on its loopback (only over the link)")
		mustNotReach(t, m.net, other.model, "machine "+other.name+"'s model (its loopback)")
		_, port, _ := net.SplitHostPort(other.model)
		mustNotReach(t, m.net, net.JoinHostPort(other.net.addr, port), "machine "+other.name+"'s model (its link address)")
		mustNotReach(t, nil, m.model, "machine "+m.name+"'s model")
	}
	if t.Failed() {
		t.FailNow()
	}
	desk := ms[0].sc.path("desk-state")
	ib := startInbox(t, ms[0].sc, "", "--state-dir", desk, "--nats", ns.url, "--machine", "desk")
	p := openBrowser(t, ms[0].sc)
	defer func() {
		if t.Failed() {
			p.shot("at-failure")
			for _, m := range ms {
				dumpChildren(t, m.sc, "", "")
			}
		}
	}()
	p.openInbox(ib)
	for _, m := range ms {
		var chat *children.Chat
		err := m.net.do(func() (err error) {
			chat, err = testChildren(m.sc).StartChat("fixer-"+m.name, childPrompt1)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		m.chat = chat.ID
	}
	byName := map[string]*machine{ms[0].name: ms[0], ms[1].name: ms[1]}
	seen := map[string]bool{}
	var lats []time.Duration
	restarted := false
	var killedAt, backAt time.Time
	for i := 0; i < 2*childClaude.asked; i++ {
		c, at := p.nextCard("#waiting-list", seen, 2*time.Minute)
		seen[c.ID] = true
		var m *machine
		for name, mm := range byName {
			if strings.Contains(c.Text, "machine "+name) {
				m = mm
			}
		}
		if m == nil {
			t.Fatalf("card %s names no machine: %q", c.ID, c.Text)
		}
		r, err := m.q.Get(c.ID)
		if err != nil {
			t.Fatalf("card %s of machine %s: %v", c.ID, m.name, err)
		}
		drawn := time.UnixMilli(int64(c.Shown)).Sub(r.Created)
		lats = append(lats, drawn)
		t.Logf("machine %s request %s (%s): drawn %s after it was queued, seen %s after", m.name, r.ID, r.Tool,
			drawn.Round(time.Millisecond), at.Sub(r.Created).Round(time.Millisecond))
		if r.Chat != m.chat || !strings.Contains(c.Text, "child fixer-"+m.name) {
			t.Errorf("card %+v for request %+v of machine %s", c, r, m.name)
		}
		sel := fmt.Sprintf(`#waiting-list article.card[data-id=%q]`, c.ID)
		deny := asksStepTwo(c.Input)
		if deny {
			p.fill(sel+" input.reason", denyMessage)
			p.press(sel, "button.deny")
		} else {
			p.press(sel, "button.allow")
		}
		got := waitDecided(t, m.q, c.ID)
		want := approvals.Allowed
		if deny {
			want = approvals.Denied
		}
		by := "on machine desk, through NATS (relay of " + m.name + ")"
		if got.Status != want || !strings.HasPrefix(got.DecidedBy, "inbox (uid ") || !strings.HasSuffix(got.DecidedBy, by) ||
			deny && got.Reason != denyMessage {
			t.Errorf("machine %s request %s after the click: %s by %q, message %q; want %s by the inbox %s", m.name, c.ID,
				got.Status, got.DecidedBy, got.Reason, want, by)
		}
		if !restarted {
			// Mid-flight: the children go on asking while NATS is down.
			restarted = true
			ns.kill(t)
			killedAt = time.Now()
			time.Sleep(2 * time.Second)
			ns.start(t)
			backAt = time.Now()
		}
	}
	t.Logf("page latency over NATS (%d requests, the ones queued while NATS was down included): %s", len(lats), latencySummary(lats))
	var text string
	during := 0
	for _, m := range ms {
		waitChatDone(t, testChildren(m.sc), m.chat)
		rs, err := m.q.List(approvals.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != childClaude.asked {
			t.Errorf("machine %s's queue holds %d requests, want %d", m.name, len(rs), childClaude.asked)
		}
		for _, r := range rs {
			if r.Created.After(killedAt) && r.Created.Before(backAt) {
				during++
			}
			if !seen[r.ID] || r.Status == approvals.Pending || !strings.Contains(r.DecidedBy, "relay of "+m.name) {
				t.Errorf("machine %s request %s: shown %v, %s by %q", m.name, r.ID, seen[r.ID], r.Status, r.DecidedBy)
			}
		}
		recs, _ := wfserver.ReadLog(m.sc.serverLog)
		for _, prob := range checkApprovedServer(recs, 1) {
			t.Errorf("machine %s's server: %s", m.name, prob)
		}
		m.sc.checkDenyReachedModel()
		tokens := verify.Tokens(recs)
		if len(tokens) == 0 {
			t.Fatalf("machine %s's token server issued no token: the page check would be vacuous", m.name)
		}
		if text == "" {
			text = pageText(p)
		}
		for _, tok := range tokens {
			if strings.Contains(text, tok) {
				t.Errorf("the page shows a token machine %s's server issued", m.name)
			}
		}
	}
	// The outage must have held a request queued while NATS was down, or
	// "nothing lost" was not tested.
	t.Logf("%d request(s) were queued while NATS was down", during)
	if during == 0 {
		t.Errorf("no request was queued while NATS was down (%s to %s): the outage tested nothing", killedAt.Format(time.StampMilli), backAt.Format(time.StampMilli))
	}
	if n := evalJS[int](p, `document.querySelectorAll('#waiting-list article.card:not(.done)').length`); n != 0 {
		t.Errorf("%d cards still wait on the page", n)
	}
	// The children tab lists each machine's child under its machine, its
	// chat named but not a link: a chat's events stay on its machine, and
	// this page's /api/chat knows only its own.
	const children = `[...document.querySelectorAll('#children-list .child')].map((c) => c.dataset.machine + ' ' + c.dataset.child +
		' ' + c.querySelector('h3').textContent.includes('machine ' + c.dataset.machine) +
		' chats:' + c.querySelectorAll('li[data-chat]').length + ' links:' + c.querySelectorAll('a[href^="#chat="]').length).sort().join(', ')`
	want := "alpha fixer-alpha true chats:1 links:0, beta fixer-beta true chats:1 links:0"
	var got string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = evalJS[string](p, children); got == want {
			break
		}
	}
	if got != want {
		t.Errorf("the children tab lists %q, want %q", got, want)
	}
}

// natsServer is a nats-server process the test starts, kills and starts
// again on the same port and store.
type natsServer struct {
	bin, url, store string
	host            string
	port            int
	cmd             *exec.Cmd
	log             *os.File
}

// natsServerBinary is Debian's nats-server, else one built from the Go
// module (offline, from the module cache).
var natsServerBinary = sync.OnceValues(func() (string, error) {
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p, nil
	}
	dir, err := os.MkdirTemp("", "nats-server-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "nats-server")
	cmd := exec.Command(goTool(), "build", "-o", bin, "github.com/nats-io/nats-server/v2")
	cmd.Dir = bins.repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOPROXY=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build nats-server: %v\n%s", err, out)
	}
	return bin, nil
})

// startNATSServer runs nats-server on host (an address of the hub).
func startNATSServer(t *testing.T, host string) *natsServer {
	t.Helper()
	bin, err := natsServerBinary()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	ns := &natsServer{bin: bin, host: host, port: port, store: filepath.Join(dir, "jetstream")}
	ns.url = "nats://" + ns.hostPort()
	if ns.log, err = os.Create(filepath.Join(dir, "nats-server.log")); err != nil {
		t.Fatal(err)
	}
	ns.start(t)
	t.Cleanup(func() {
		ns.kill(t)
		if t.Failed() {
			b, _ := os.ReadFile(ns.log.Name())
			t.Logf("nats-server log:\n%s", tail(string(b), 40))
		}
	})
	return ns
}

// start runs the server and waits until it takes connections.
func (ns *natsServer) start(t *testing.T) {
	t.Helper()
	ns.cmd = exec.Command(ns.bin, "-js", "-a", ns.host, "-p", fmt.Sprint(ns.port), "-sd", ns.store)
	ns.cmd.Stdout, ns.cmd.Stderr = ns.log, ns.log
	if err := ns.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", ns.hostPort()); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server took no connection in 15 s")
		}
	}
}

func (ns *natsServer) hostPort() string { return net.JoinHostPort(ns.host, fmt.Sprint(ns.port)) }

// kill ends the server at once, as a crash does.
func (ns *natsServer) kill(t *testing.T) {
	if ns.cmd == nil || ns.cmd.Process == nil {
		return
	}
	ns.cmd.Process.Kill()
	ns.cmd.Wait()
	ns.cmd = nil
	t.Logf("nats-server killed")
}

// startRelay runs interceptor-http relay for the scenario's state dir, in
// the machine's network namespace.
func startRelay(t *testing.T, sc *scenario, mn *netns, url, machine string) {
	t.Helper()
	cmd := exec.Command(inboxBinary(t), "relay", "--nats", url, "--state-dir", sc.stateDir, "--machine", machine, "--heartbeat", "1s")
	cmd.Env = sc.baseEnv()
	errf, err := os.Create(sc.path("relay-" + machine + ".stderr"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = errf, errf
	if err := mn.start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopOnSIGTERM(t, cmd, "relay "+machine)
		errf.Close()
		b, _ := os.ReadFile(errf.Name())
		t.Logf("relay %s output:\n%s", machine, tail(string(b), 30))
	})
}

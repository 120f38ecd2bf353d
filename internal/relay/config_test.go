package relay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/inbox"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// seedFile makes a user nkey, writes its seed to a 0600 file and returns
// the file and the public key.
func seedFile(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	seed, _ := kp.Seed()
	path := filepath.Join(dir, name+".nk")
	if err := os.WriteFile(path, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, pub
}

// The server configuration docs/relay.md gives (examples/relay/
// nats-server.conf), run as is with fresh nkeys: each relay works within
// its permissions, the inbox decides on both machines, and a relay can
// neither write another machine's requests nor receive its decisions.
func TestExampleConfigScopesMachines(t *testing.T) {
	dir := t.TempDir()
	conf, err := os.ReadFile(filepath.Join("..", "..", "examples", "relay", "nats-server.conf"))
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string]string{}
	text := string(conf)
	for _, m := range []string{"laptop", "devbox", "desk"} {
		var pub string
		seeds[m], pub = seedFile(t, dir, m)
		text = strings.Replace(text, "U"+strings.ToUpper(m)+"_PUBLIC_KEY_REPLACE_ME", pub, 1)
	}
	path := filepath.Join(dir, "nats-server.conf")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts.Host, opts.Port, opts.StoreDir, opts.NoLog, opts.NoSigs = "127.0.0.1", -1, filepath.Join(dir, "js"), true, true
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(ns.Shutdown)
	url := natsURL(ns)

	// Two relays start at once, as on a real deployment, with the
	// heartbeat a user runs (the default, 10 s). TestRelaysStartingAtOnce
	// holds that no request is lost at such a start, with an hour's.
	relays := map[string]*machine{}
	for _, name := range []string{"laptop", "devbox"} {
		m := &machine{name: name, dir: filepath.Join(dir, name), done: make(chan error, 1)}
		m.q = approvals.New(m.dir)
		nc, err := Connect(ConnOptions{URL: url, NKey: seeds[name], Machine: name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		if m.relay, err = New(Options{StateDir: m.dir, Machine: name, Conn: nc}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { m.done <- m.relay.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-m.done })
		relays[name] = m
	}
	a := enqueue(t, relays["laptop"].q, "S", "Bash", `{"command":"ls"}`, time.Now().Add(time.Minute))
	b := enqueue(t, relays["devbox"].q, "S", "Bash", `{"command":"make"}`, time.Now().Add(time.Minute))

	in := startInboxConn(t, ConnOptions{URL: url, NKey: seeds["desk"], Machine: "desk"}, "desk")
	ctx := context.Background()
	until(t, in, "both machines' requests", func(o []inbox.Open) bool { return len(o) == 2 })
	if r, err := in.Decide(ctx, "laptop", a.ID, hooks.Decision{Allow: true, By: "inbox"}); err != nil || r.Status != approvals.Allowed {
		t.Fatalf("deciding on laptop: %+v %v", r, err)
	}
	if r, err := in.Decide(ctx, "devbox", b.ID, hooks.Decision{Allow: false, By: "inbox"}); err != nil || r.Status != approvals.Denied {
		t.Fatalf("deciding on devbox: %+v %v", r, err)
	}

	// The laptop's credentials, used by someone else: devbox's requests
	// and decisions stay out of reach.
	evil, err := nats.Connect(url, nats.Nkey(mustPub(t, seeds["laptop"]), signer(t, seeds["laptop"])), nats.CustomInboxPrefix("_INBOX_laptop"))
	if err != nil {
		t.Fatal(err)
	}
	defer evil.Close()
	js, _ := jetstream.New(evil)
	kv, err := js.KeyValue(ctx, RequestsBucket)
	if err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
	defer pcancel()
	if _, err := kv.Put(pctx, "devbox.0123456789abcdef", []byte(`{}`)); err == nil {
		t.Error("laptop's user wrote a devbox request")
	}
	octx, ocancel := context.WithTimeout(ctx, 5*time.Second)
	defer ocancel()
	if _, err := kv.Put(octx, "laptop.0123456789abcdef", []byte(`{}`)); err != nil {
		t.Errorf("laptop's user cannot write its own key: %v", err)
	}
	errs := make(chan error, 1)
	evil.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs <- err })
	if _, err := evil.SubscribeSync(ActionSubject("devbox")); err != nil {
		t.Fatal(err)
	}
	evil.Flush()
	select {
	case err := <-errs:
		if !errors.Is(err, nats.ErrPermissionViolation) && !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
			t.Errorf("subscribing to devbox's decisions: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Error("laptop's user subscribed to devbox's decisions")
	}
}

func mustPub(t *testing.T, seedPath string) string {
	kp := keyPair(t, seedPath)
	pub, _ := kp.PublicKey()
	return pub
}

func signer(t *testing.T, seedPath string) nats.SignatureHandler {
	kp := keyPair(t, seedPath)
	return func(nonce []byte) ([]byte, error) { return kp.Sign(nonce) }
}

func keyPair(t *testing.T, seedPath string) nkeys.KeyPair {
	t.Helper()
	seed, err := os.ReadFile(seedPath)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := nkeys.FromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// The inbox restarted while its tab stays open (issue 29 item 1, and what
// issue 31 builds on): the key is kept in the state dir and in the tab, so
// the tab goes live again by itself and a click decides. While the inbox
// is down another process takes its port and answers the page: the page
// asks it to prove the key, it cannot, and the page says so and sends it
// nothing else (no proof, no session token). An inbox started with
// --new-key is such a server too, until the new URL is opened.
func TestInboxRestartWhileTheTabStaysOpen(t *testing.T) {
	sc := pageScenario(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ib := startInbox(t, sc, "", "--listen", addr)
	p := openBrowser(t, sc)
	p.openInbox(ib)
	q := approvals.New(sc.stateDir)
	r := queueBash(t, q, map[string]string{"command": "echo waited through a restart"})
	p.until("the card", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(r.ID)), 10*time.Second)
	live := `document.getElementById('live').classList.contains('on')`

	ib.stop()
	p.until("the page to see the inbox go", `!`+live, 10*time.Second)
	ib2 := startInbox(t, sc, "", "--listen", addr)
	if ib2.url != ib.url {
		t.Errorf("the restarted inbox prints another URL (another key)")
	}
	t0 := time.Now()
	p.until("the tab live again, by itself", live, 20*time.Second)
	t.Logf("the tab was live again %s after the inbox restarted", time.Since(t0).Round(time.Millisecond))
	p.press(cardSel(r.ID), "button.allow")
	if got := waitDecided(t, q, r.ID); got.Status != approvals.Allowed || !strings.HasPrefix(got.DecidedBy, "inbox (uid ") {
		t.Errorf("a click after the restart: %s by %q", got.Status, got.DecidedBy)
	}

	// Another process takes the port while the inbox is down.
	ib2.stop()
	p.until("the page to see the inbox go", `!`+live, 10*time.Second)
	sq := startSquatter(t, addr)
	said := false
	for deadline := time.Now().Add(20 * time.Second); !said && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		said = evalJS[bool](p, `!document.getElementById('auth-note').hidden && document.getElementById('auth-note').textContent.includes('does not know this tab')`)
	}
	p.shot("squatter")
	time.Sleep(2 * time.Second) // what the page sends meanwhile
	got := sq.close()
	if !said {
		t.Errorf("the page never said that the server at its address is not the inbox")
	}
	hellos := 0
	for _, g := range got {
		t.Logf("the squatter got %s", g)
		switch {
		case strings.HasPrefix(g, "POST /api/hello "):
			hellos++
		default:
			t.Errorf("the page sent a server that could not prove the key %s", g)
		}
	}
	if hellos == 0 {
		t.Errorf("the page never asked the squatter to prove the key: the check above is vacuous")
	}

	// A new key: the old tab is refused until the new URL is opened.
	ib3 := startInbox(t, sc, "", "--listen", addr, "--new-key")
	if ib3.url == ib.url {
		t.Fatalf("--new-key printed the old URL")
	}
	time.Sleep(12 * time.Second) // the page's longest pause between tries, and some
	if evalJS[bool](p, live) || !evalJS[bool](p, `!document.getElementById('auth-note').hidden`) {
		t.Errorf("the tab holding the old key is live on an inbox with a new key, or says nothing")
	}
	p.openInbox(ib3)
	if evalJS[bool](p, `!document.getElementById('auth-note').hidden`) {
		t.Errorf("the banner stays after the new URL was opened")
	}
}

type squatter struct {
	srv  *http.Server
	mu   sync.Mutex
	seen []string
}

// startSquatter listens on addr and answers /api/hello with a proof made
// without the key; it keeps each request's method, path and headers.
func startSquatter(t *testing.T, addr string) *squatter {
	t.Helper()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("the squatter cannot take %s: %v", addr, err)
	}
	sq := &squatter{}
	sq.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, _ := json.Marshal(r.Header)
		sq.mu.Lock()
		sq.seen = append(sq.seen, r.Method+" "+r.URL.Path+" "+string(h))
		sq.mu.Unlock()
		if r.URL.Path == "/api/hello" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"server_nonce":%q,"proof":%q}`, strings.Repeat("5a", 32), strings.Repeat("a5", 32))
			return
		}
		w.WriteHeader(http.StatusNotFound)
	})}
	go sq.srv.Serve(ln)
	t.Cleanup(func() { sq.srv.Close() })
	return sq
}

func (sq *squatter) close() []string {
	sq.srv.Close()
	sq.mu.Lock()
	defer sq.mu.Unlock()
	return append([]string(nil), sq.seen...)
}

package streamhttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/proxy/proxytest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 21: the go-sdk (v1.8.0) client and server through the HTTP relay.
// At 2026-07-28 (to a stateless server, and to one that accepts nothing
// older) every POST carries the headers its body asks for, there is no
// session, no GET stream and no DELETE; at 2025-11-25 (a stateful server)
// the session works as before. Either way the token is carried on every
// call without the client passing it, a multi round-trip call whose
// requestState holds the token gets it back byte for byte, a list change
// reaches the client (on the subscriptions/listen stream, or the GET
// stream), and the client never sees a token. At 2026-07-28 a call the
// client gives up on is cancelled on the server: its stream is closed.
func TestHTTPModernSDK(t *testing.T) {
	for _, c := range []struct {
		name      string
		versions  []string
		stateless bool
		version   string
	}{
		{"2026-07-28 stateless", nil, true, proxytest.Modern},
		{"only 2026-07-28", []string{proxytest.Modern}, true, proxytest.Modern},
		{"2025-11-25 stateful", nil, false, proxytest.Legacy},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := proxytest.NewModernServer(c.versions...)
			// The go-sdk cancels a 2026-07-28 handler when its stream
			// closes only when asked to.
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.Server },
				&mcp.StreamableHTTPOptions{Stateless: c.stateless, PropagateRequestCancellation: true})
			var mu sync.Mutex
			var seen []http.Header
			var methods []string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, r.Header.Clone())
				methods = append(methods, r.Method)
				mu.Unlock()
				h.ServeHTTP(w, r)
			}))
			defer ts.Close()
			done := make(chan struct{})
			client := proxytest.ConnectModern(t, c.version, func(in io.Reader, out io.Writer) {
				defer close(done)
				relay := &HTTP{URL: ts.URL, In: in, Out: out, Grace: 2 * time.Second}
				if _, err := relay.Run(newRW(t)); err != nil {
					t.Error(err)
				}
			})
			proxytest.CheckModern(t, client, c.version)
			if c.version == proxytest.Modern {
				proxytest.CheckCancel(t, client, srv)
			}
			client.CS.Close()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the relay did not stop after the client closed")
			}
			mu.Lock()
			defer mu.Unlock()
			if c.version != proxytest.Modern {
				return
			}
			for i, hd := range seen {
				if methods[i] != http.MethodPost {
					t.Errorf("request %d is a %s: 2026-07-28 has no GET stream and no DELETE", i, methods[i])
				}
				if hd.Get("Mcp-Session-Id") != "" {
					t.Errorf("request %d carries a session id", i)
				}
				if hd.Get("Mcp-Protocol-Version") != proxytest.Modern || hd.Get("Mcp-Method") == "" {
					t.Errorf("request %d: Mcp-Protocol-Version %q, Mcp-Method %q", i, hd.Get("Mcp-Protocol-Version"), hd.Get("Mcp-Method"))
				}
				if hd.Get("Mcp-Method") == "tools/call" && hd.Get("Mcp-Name") == "" {
					t.Errorf("request %d: a tools/call without Mcp-Name", i)
				}
			}
			var listed []string
			for _, hd := range seen {
				listed = append(listed, hd.Get("Mcp-Method")+" "+hd.Get("Mcp-Name"))
			}
			if all := strings.Join(listed, ","); !strings.Contains(all, "server/discover") || !strings.Contains(all, "subscriptions/listen") || !strings.Contains(all, "tools/call confirm") {
				t.Errorf("the server was asked: %s", all)
			}
		})
	}
}

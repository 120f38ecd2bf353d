package streamhttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

// stubAuth hands out "Bearer good" once challenged (or fails).
type stubAuth struct {
	mu         sync.Mutex
	cur        string
	challenged []string // the Authorization each challenged request carried
	fail       error
}

func (a *stubAuth) Authorization(context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cur, nil
}

func (a *stubAuth) Challenged(_ context.Context, status int, h http.Header, sent string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.challenged = append(a.challenged, sent)
	if a.fail != nil {
		return false, a.fail
	}
	if status != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), "resource_metadata") {
		return false, nil
	}
	a.cur = "Bearer good"
	return true, nil
}

// Issue 33: a request the server answers 401 goes to the authorizer,
// and is sent again, body and all, with the token it got; every later
// request carries the token.
func TestUnauthorizedIsAuthorizedAndSentAgain(t *testing.T) {
	var mu sync.Mutex
	var bodies, auths []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies, auths = append(bodies, string(body)), append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+gjson.GetBytes(body, "id").Raw+`,"result":{"content":[]}}`)
	}))
	defer ts.Close()
	auth := &stubAuth{}
	send, stop := relayLines(t, &HTTP{URL: ts.URL, Auth: auth, Header: [][2]string{{"Authorization", "Bearer static"}}})
	first := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}}`
	if r := send(first); r.Get("result").Raw == "" {
		t.Fatalf("the client got %s", r.Raw)
	}
	if r := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","arguments":{}}}`); r.Get("result").Raw == "" {
		t.Fatalf("the client got %s", r.Raw)
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 3 || bodies[0] != first || bodies[1] != first {
		t.Fatalf("the server got %q; want the first request twice, then the second", bodies)
	}
	if auths[0] != "" || auths[1] != "Bearer good" || auths[2] != "Bearer good" {
		t.Fatalf("Authorization sent: %q (the authorizer's replaces the static header)", auths)
	}
	if len(auth.challenged) != 1 {
		t.Fatalf("challenged %d times", len(auth.challenged))
	}
}

// An authorization that fails answers the request with why; a 403 the
// authorizer does not take on reaches the client as the server's error.
func TestAuthorizationFailureReachesTheClient(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if gjson.GetBytes(body, "params.name").Str == "forbidden" {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "no")
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer ts.Close()
	auth := &stubAuth{fail: errors.New("no authorization came back from the browser")}
	send, stop := relayLines(t, &HTTP{URL: ts.URL, Auth: auth})
	r := send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}}`)
	if msg := r.Get("error.message").Str; !strings.Contains(msg, "authorization failed: no authorization came back") {
		t.Fatalf("the client got %s", r.Raw)
	}
	auth.mu.Lock()
	auth.fail = nil
	auth.mu.Unlock()
	r = send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forbidden","arguments":{}}}`)
	stop()
	if msg := r.Get("error.message").Str; !strings.Contains(msg, "HTTP 403") {
		t.Fatalf("the client got %s", r.Raw)
	}
}

package oauthserver

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/oauth"
)

// The relay's OAuth client against this server: registration, the
// authorization, the code exchange with PKCE and the resource, the token
// accepted at /mcp, and a refresh after it expires.
func TestRelayClientAgainstServer(t *testing.T) {
	s, err := Start(Options{MCP: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }), Scope: "wf", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	c, err := oauth.New(oauth.Config{Server: s.Endpoint(), StateDir: filepath.Join(t.TempDir(), "state"),
		Now: func() time.Time { return now }, LoginTimeout: 10 * time.Second,
		OpenBrowser: func(u string) error {
			go func() {
				if resp, err := http.Get(u); err == nil {
					resp.Body.Close()
				}
			}()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	get := func() int {
		auth, _ := c.Authorization(t.Context())
		req, _ := http.NewRequest(http.MethodPost, s.Endpoint(), strings.NewReader("{}"))
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 401 {
			if retry, err := c.Challenged(t.Context(), 401, resp.Header, auth); err != nil || !retry {
				t.Fatalf("Challenged: %v %v", retry, err)
			}
			return 0
		}
		return resp.StatusCode
	}
	if got := get(); got != 0 {
		t.Fatalf("first request: %d, want a 401", got)
	}
	if got := get(); got != 200 {
		t.Fatalf("after authorizing: %d", got)
	}
	now = now.Add(2 * time.Minute)
	// The server's clock did not move: its token is still live there, but
	// the client's has expired, so it refreshes first.
	if got := get(); got != 200 {
		t.Fatalf("after the refresh: %d", got)
	}
	var kinds []string
	for _, e := range s.Events() {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, " ") != "refused register authorize token refresh" {
		t.Fatalf("events %q", kinds)
	}
}

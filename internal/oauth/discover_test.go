package oauth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A server without protected resource metadata (2025-03-26) is its own
// authorization server: the metadata at its origin may name an issuer
// below it. Named by a server's metadata, an issuer must be exactly the
// one in the authorization server's (RFC 8414 §3.3).
func TestAuthServerIssuer(t *testing.T) {
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"issuer": ts.URL + "/oauth", "authorization_endpoint": ts.URL + "/oauth/authorize",
			"token_endpoint": ts.URL + "/oauth/token", "code_challenge_methods_supported": []string{"S256"}})
	}))
	defer ts.Close()
	m, err := discoverAuthServer(t.Context(), ts.Client(), ts.URL, true)
	if err != nil || m == nil || m.Issuer != ts.URL+"/oauth" {
		t.Fatalf("legacy: %+v %v", m, err)
	}
	if _, err := discoverAuthServer(t.Context(), ts.Client(), ts.URL, false); err == nil || !strings.Contains(err.Error(), "RFC 8414") {
		t.Fatalf("named issuer: err %v", err)
	}
}

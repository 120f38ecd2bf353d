package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// --header-env and --bearer-env read the header values from the
// environment (install --proxy puts them there), so a secret never stands
// in the relay's arguments; a variable that is not set is refused by name.
func TestHeaderEnvFlags(t *testing.T) {
	env := map[string]string{"WF_AUTH": "Bearer s3cret", "TOK": "t0k", "EMPTY": " "}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	h := headerEnvFlags{fromEnv: []string{"Authorization=WF_AUTH", " X-Key = TOK "}, bearer: "TOK"}
	got, err := h.headers(lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"Authorization", "Bearer s3cret"}, {"X-Key", "t0k"}, {"Authorization", "Bearer t0k"}}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("header %d: got %q, want %q", i, got[i], want[i])
		}
	}
	for _, bad := range []headerEnvFlags{
		{fromEnv: []string{"Authorization=NOPE"}},
		{fromEnv: []string{"Authorization=EMPTY"}},
		{fromEnv: []string{"Authorization"}},
		{bearer: "NOPE"},
	} {
		if _, err := bad.headers(lookup); err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%+v: err %v", bad, err)
		}
	}
}

// Through the relay (interceptor-http): the server gets the header whose
// value was only in the environment, at the address that was only in the
// environment (--url-env, as install --proxy wires it): its path and
// query, keys and all, as written.
func TestRelaySendsHeaderFromEnv(t *testing.T) {
	if runHTTP == nil {
		t.Skip("the HTTP relay is in the proxyhttp build only (go test -tags proxyhttp)")
	}
	var mu sync.Mutex
	var seen, at []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		at = append(at, r.URL.RequestURI())
		mu.Unlock()
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	t.Setenv("WF_AUTH", "Bearer s3cret")
	t.Setenv("WF_URL", srv.URL+"/s/sk_live_51Hx0123456789/mcp?api_key=k3y")
	var out, errb bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n")
	code := run([]string{"proxy", "--url-env", "WF_URL", "--header-env", "Authorization=WF_AUTH", "--grace", "100ms"}, &IO{In: in, Out: &out, Err: &errb})
	if code != 0 || !strings.Contains(out.String(), `"id":1`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] != "Bearer s3cret" {
		t.Errorf("the server saw Authorization %q", seen)
	}
	if len(at) == 0 || at[0] != "/s/sk_live_51Hx0123456789/mcp?api_key=k3y" {
		t.Errorf("the server was reached at %q", at)
	}
}

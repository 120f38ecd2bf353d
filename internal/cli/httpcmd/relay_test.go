package httpcmd

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/cli"
)

// Through the relay (interceptor-http): the server gets the header whose
// value was only in the environment, at the address that was only in the
// environment (--url-env, as install --proxy wires it): its path and
// query, keys and all, as written.
func TestRelaySendsHeaderFromEnv(t *testing.T) {
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
	code := run([]string{"proxy", "--url-env", "WF_URL", "--header-env", "Authorization=WF_AUTH", "--grace", "100ms"}, &cli.IO{In: in, Out: &out, Err: &errb})
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

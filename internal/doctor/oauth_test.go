package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/oauth/store"
)

// Issue 33: doctor shows the relay's OAuth authorizations in the state
// dir, warns of one the relay would have to redo, fails a token file open
// to others, and never prints a token.
func TestDoctorOAuth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	now := time.Now()
	st := &store.Store{StateDir: dir}
	for _, r := range []*store.Record{
		{Server: "https://ok.example/mcp", Issuer: "https://as.example", AccessToken: "t0ken-ok", Expiry: now.Add(time.Hour)},
		{Server: "https://old.example/mcp", Issuer: "https://as.example", AccessToken: "t0ken-old", Expiry: now.Add(-time.Hour)},
		{Server: "https://keyed.example/mcp?api_key=sk-live-secretvalue", Issuer: "https://as.example", Expiry: now.Add(-time.Hour)},
	} {
		if err := st.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	r := doctorState(dir, now)
	var text []string
	for _, f := range r.Findings {
		text = append(text, f.Level+" "+f.Message)
	}
	all := strings.Join(text, "\n")
	if !strings.Contains(all, "info OAuth (the relay, proxy --url https://ok.example/mcp): authorized (the token expires in") ||
		!strings.Contains(all, "warn OAuth (the relay, proxy --url https://old.example/mcp): expired, with no refresh token (interceptor-http auth login --url https://old.example/mcp)") {
		t.Fatalf("findings:\n%s", all)
	}
	if strings.Contains(all, "t0ken") || strings.Contains(all, "secretvalue") {
		t.Fatalf("doctor printed a token or an address's key:\n%s", all)
	}
	if !strings.Contains(all, "proxy --url https://keyed.example/mcp?api_key=…): not authorized (no token kept; interceptor-http auth login --url https://keyed.example/mcp?api_key=…) (the address is masked") {
		t.Fatalf("the keyed server's line:\n%s", all)
	}
	os.Chmod(st.Path("https://ok.example/mcp"), 0o644)
	r = doctorState(dir, now)
	failed := false
	for _, f := range r.Findings {
		failed = failed || (f.Level == Fail && strings.Contains(f.Message, "open to group or others"))
	}
	if !failed || r.Safe {
		t.Fatalf("a token file open to others: %+v", r.Findings)
	}
}

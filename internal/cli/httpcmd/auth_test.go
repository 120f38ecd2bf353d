package httpcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/cli"
	"github.com/interceptor-dev/interceptor/internal/oauth/store"
)

// run runs interceptor-http's command line.
func run(args []string, io *cli.IO) int {
	return cli.Main(args, &cli.Factory{IO: io, HTTP: Commands()})
}

// auth status says whether the relay is authorized, never showing a
// token; logout forgets; status then exits 1.
func TestAuthStatusAndLogout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	server := "https://mcp.example.com/mcp"
	st := &store.Store{StateDir: dir}
	rec := &store.Record{Server: server, Resource: server, Issuer: "https://as.example.com", ClientID: "c1", Registered: true,
		ClientSecret: "client-s3cret", AccessToken: "access-t0ken", RefreshToken: "refresh-t0ken", Scope: "mcp:read",
		Expiry: time.Now().Add(time.Hour)}
	if err := st.Save(rec); err != nil {
		t.Fatal(err)
	}
	runAuthCmd := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(append(args, "--state-dir", dir), &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String() + errb.String()
	}
	code, out := runAuthCmd("auth", "status", "--url", "HTTPS://MCP.example.com:443/mcp/")
	if code != 0 || !strings.Contains(out, "authorized (the token expires in") || !strings.Contains(out, "mcp:read") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	if code, all := runAuthCmd("auth", "status"); code != 0 || !strings.Contains(all, server+": authorized") {
		t.Fatalf("status of all: exit %d\n%s", code, all)
	}
	code, out2 := runAuthCmd("auth", "logout", "--url", server)
	for _, secret := range []string{"access-t0ken", "refresh-t0ken", "client-s3cret"} {
		if strings.Contains(out+out2, secret) {
			t.Fatalf("auth printed %s", secret)
		}
	}
	if code != 0 || !strings.Contains(out2, "forgot") {
		t.Fatalf("logout: exit %d\n%s", code, out2)
	}
	if _, err := os.Stat(st.Path(server)); !os.IsNotExist(err) {
		t.Fatalf("the token file is still there: %v", err)
	}
	if code, out := runAuthCmd("auth", "status", "--url", server); code != 1 || !strings.Contains(out, "not authorized") {
		t.Fatalf("status after logout: exit %d\n%s", code, out)
	}
}

// auth status without --url lists every server with its address masked:
// a key in a path or query is not printed to a terminal that lists them.
func TestAuthStatusAllMasksAddresses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	server := "https://mcp.example.com/mcp?api_key=sk-live-secretvalue"
	if err := (&store.Store{StateDir: dir}).Save(&store.Record{Server: server, Issuer: "https://as.example.com"}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := run([]string{"auth", "status", "--state-dir", dir}, &cli.IO{In: strings.NewReader(""), Out: &out, Err: &out})
	if code != 0 || strings.Contains(out.String(), "secretvalue") || !strings.Contains(out.String(), "https://mcp.example.com/mcp?api_key=…: not authorized") {
		t.Fatalf("status of all: exit %d\n%s", code, out.String())
	}
}

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/oauth/store"
)

// The relay's OAuth options: the client secret comes from the
// environment, never the arguments; an Authorization header given, or
// --no-oauth, turns OAuth off (and its flags are then refused).
func TestOAuthFlags(t *testing.T) {
	env := map[string]string{"SECRET": " s3cret ", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	dir := &stateDirFlag{dir: t.TempDir()}
	o := oauthFlags{clientID: "id", secretEnv: "SECRET", callbackPort: 8765}
	got, err := o.resolve(nil, dir, lookup)
	if err != nil || got.ClientSecret != "s3cret" || got.ClientID != "id" || got.CallbackPort != 8765 || got.StateDir != dir.dir {
		t.Fatalf("%+v %v", got, err)
	}
	if got, err := (&oauthFlags{}).resolve([][2]string{{"authorization", "Bearer x"}}, dir, lookup); got != nil || err != nil {
		t.Fatalf("with an Authorization header: %+v %v; want OAuth off", got, err)
	}
	for _, bad := range []oauthFlags{
		{clientID: "id", secretEnv: "NOPE"},
		{clientID: "id", secretEnv: "EMPTY"},
		{secretEnv: "SECRET"},
		{off: true, clientID: "id"},
		{callbackPort: 70000},
	} {
		if _, err := bad.resolve(nil, dir, lookup); err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%+v: err %v", bad, err)
		}
	}
}

// auth status says whether the relay is authorized, never showing a
// token; logout forgets; status then exits 1.
func TestAuthStatusAndLogout(t *testing.T) {
	if runAuth == nil {
		t.Skip("auth is in the proxyhttp build only (go test -tags proxyhttp)")
	}
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
		code := run(append(args, "--state-dir", dir), &IO{In: strings.NewReader(""), Out: &out, Err: &errb})
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

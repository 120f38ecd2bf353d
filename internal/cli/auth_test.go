package cli

import (
	"strings"
	"testing"
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

package cli

import (
	"strings"
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

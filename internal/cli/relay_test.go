package cli

import (
	"bytes"
	"strings"
	"testing"
)

// interceptor relay: the binary that links no network client says where
// the relay is, in one line (interceptor-http's runs it: internal/relay's
// tests, e2e TestRelayTwoMachines). No variable sets its flags.
func TestRelayCommand(t *testing.T) {
	relay := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"relay", "--state-dir", t.TempDir()}, args...), &IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		if out.Len() > 0 {
			t.Errorf("stdout %q", out.String())
		}
		return errb.String(), code
	}
	errs, code := relay("--nats", "nats://127.0.0.1:4222")
	if want := "run interceptor-http relay from the same release"; code != 1 || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
		t.Errorf("relay: exit %d, stderr %q, want one line with %q", code, errs, want)
	}
	for _, v := range []string{"INTERCEPTOR_NATS", "INTERCEPTOR_CREDS", "INTERCEPTOR_MACHINE"} {
		t.Setenv(v, "x")
		if errs, code := relay(); code != 1 || !strings.Contains(errs, "refusing "+v) {
			t.Errorf("%s: exit %d, stderr %q", v, code, errs)
		}
		t.Setenv(v, "")
	}
}

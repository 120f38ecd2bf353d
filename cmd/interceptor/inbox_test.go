package main

import (
	"bytes"
	"strings"
	"testing"
)

// interceptor inbox: the hook binary says where the page is; the
// interceptor-http build (-tags proxyhttp) refuses an address beyond
// loopback. No variable sets its flags: INTERCEPTOR_ALLOW_REMOTE must not
// open the page to the network, nor INTERCEPTOR_NOTIFY send its messages
// elsewhere.
func TestInboxCommand(t *testing.T) {
	inbox := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"inbox", "--state-dir", t.TempDir()}, args...), &streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		if out.Len() > 0 {
			t.Errorf("stdout %q", out.String())
		}
		return errb.String(), code
	}
	errs, code := inbox("--listen", "0.0.0.0:0")
	want := "run interceptor-http inbox from the same release" // the hook binary
	if runInbox != nil {
		want = "is not a loopback address" // interceptor-http
	}
	if code != 1 || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
		t.Errorf("inbox --listen 0.0.0.0:0: exit %d, stderr %q, want one line with %q", code, errs, want)
	}
	for _, v := range []string{"INTERCEPTOR_ALLOW_REMOTE", "INTERCEPTOR_LISTEN", "INTERCEPTOR_NOTIFY", "INTERCEPTOR_NOTIFY_JSON", "INTERCEPTOR_DESKTOP", "INTERCEPTOR_NEW_KEY"} {
		t.Run(v, func(t *testing.T) {
			t.Setenv(v, "1")
			errs, code := inbox()
			if code != 1 || !strings.Contains(errs, "refusing "+v) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stderr %q", code, errs)
			}
		})
	}
}

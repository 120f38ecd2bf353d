package httpcmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/cli"
)

// interceptor-http inbox refuses an address beyond loopback, and no
// variable sets its flags: INTERCEPTOR_ALLOW_REMOTE must not open the page
// to the network, nor INTERCEPTOR_NOTIFY send its messages elsewhere.
func TestInboxCommand(t *testing.T) {
	inbox := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"inbox", "--state-dir", t.TempDir()}, args...), &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		if out.Len() > 0 {
			t.Errorf("stdout %q", out.String())
		}
		return errb.String(), code
	}
	errs, code := inbox("--listen", "0.0.0.0:0")
	if want := "is not a loopback address"; code != 1 || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
		t.Errorf("inbox --listen 0.0.0.0:0: exit %d, stderr %q, want one line with %q", code, errs, want)
	}
	for _, v := range []string{"INTERCEPTOR_ALLOW_REMOTE", "INTERCEPTOR_LISTEN", "INTERCEPTOR_NOTIFY", "INTERCEPTOR_NOTIFY_ENV", "INTERCEPTOR_NOTIFY_FILE",
		"INTERCEPTOR_NOTIFY_JSON", "INTERCEPTOR_DESKTOP", "INTERCEPTOR_NEW_KEY"} {
		t.Run(v, func(t *testing.T) {
			t.Setenv(v, "1")
			errs, code := inbox()
			if code != 1 || !strings.Contains(errs, "refusing "+v) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stderr %q", code, errs)
			}
		})
	}
}

// The notify URL read from --notify-env is checked by the page, and no
// error repeats it (the flags' reading: cli's TestInboxNotifyURL).
func TestInboxNotifyURL(t *testing.T) {
	t.Setenv("E2E_NTFY", "ftp://host/SECRET-topic")
	var out, errb bytes.Buffer
	code := run([]string{"inbox", "--state-dir", filepath.Join(t.TempDir(), "s"), "--notify-env", "E2E_NTFY"}, &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 1 || strings.Contains(errb.String()+out.String(), "SECRET") || !strings.Contains(errb.String(), "--notify: want an http or https URL") {
		t.Errorf("a bad URL from --notify-env: exit %d, stderr %q", code, errb.String())
	}
}

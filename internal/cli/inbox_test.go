package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// interceptor inbox: the binary without net/http says where the page is
// (interceptor-http's: httpcmd's TestInboxCommand). No variable sets its
// flags: INTERCEPTOR_ALLOW_REMOTE must not open the page to the network, nor
// INTERCEPTOR_NOTIFY send its messages elsewhere.
func TestInboxCommand(t *testing.T) {
	inbox := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"inbox", "--state-dir", t.TempDir()}, args...), &IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		if out.Len() > 0 {
			t.Errorf("stdout %q", out.String())
		}
		return errb.String(), code
	}
	errs, code := inbox("--listen", "0.0.0.0:0")
	want := "run interceptor-http inbox from the same release"
	if code != 1 || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
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

// The notify URL is a secret: --notify-env and --notify-file take it from
// where other users cannot read it (a command line they can), one source
// at most, and no error repeats it.
func TestInboxNotifyURL(t *testing.T) {
	env := map[string]string{"NTFY": "  https://ntfy.sh/SECRET-topic\n", "EMPTY": " "}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	dir := t.TempDir()
	file := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	good := file("url", "https://ntfy.sh/SECRET-topic\n", 0o600)
	for _, c := range []struct {
		name       string
		o          inboxOptions
		want, fail string
	}{
		{"none", inboxOptions{}, "", ""},
		{"--notify", inboxOptions{notify: "https://x/SECRET"}, "https://x/SECRET", ""},
		{"--notify-env", inboxOptions{notifyEnv: "NTFY"}, "https://ntfy.sh/SECRET-topic", ""},
		{"--notify-file", inboxOptions{notifyFile: good}, "https://ntfy.sh/SECRET-topic", ""},
		{"unset variable", inboxOptions{notifyEnv: "NOPE"}, "", "--notify-env: the environment variable NOPE is not set"},
		{"empty variable", inboxOptions{notifyEnv: "EMPTY"}, "", "EMPTY is not set"},
		{"two sources", inboxOptions{notify: "https://x/SECRET", notifyEnv: "NTFY"}, "", "give one"},
		{"a file others can read", inboxOptions{notifyFile: file("open", "https://ntfy.sh/SECRET\n", 0o644)}, "", "chmod 600"},
		{"no file", inboxOptions{notifyFile: filepath.Join(dir, "missing")}, "", "no such file"},
		{"two lines", inboxOptions{notifyFile: file("two", "https://a/SECRET\nhttps://b/SECRET\n", 0o600)}, "", "on one line"},
	} {
		got, err := c.o.notifyURL(lookup)
		switch {
		case c.fail == "" && (err != nil || got != c.want):
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail) || strings.Contains(err.Error(), "SECRET")):
			t.Errorf("%s: %q, %v; want an error with %q and no secret", c.name, got, err, c.fail)
		}
	}
}

// --notify-wait 0 sends each request at once (inbox.Options: negative);
// no flag keeps the 1.5 s burst; a negative one is refused.
func TestInboxNotifyWait(t *testing.T) {
	for _, c := range []struct {
		flag time.Duration
		want time.Duration
		fail bool
	}{{1500 * time.Millisecond, 1500 * time.Millisecond, false}, {0, -1, false}, {-time.Second, 0, true}} {
		o := inboxOptions{notifyWait: c.flag}
		o.dir = t.TempDir()
		r, err := o.run()
		if c.fail != (err != nil) || err == nil && r.NotifyWait != c.want {
			t.Errorf("--notify-wait %s: %+v, %v; want %s", c.flag, r, err, c.want)
		}
	}
}

package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// builtDirs are the dirs tests built binaries into once for the whole
// package (outside any test's TempDir): TestMain removes them, so a run
// leaves nothing in the temp dir.
var builtDirs []string

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range builtDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func TestRunDirect(t *testing.T) {
	// The command can be driven with injected streams, no process needed.
	var out, errb bytes.Buffer
	code := run([]string{"version"}, &IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 0 || !strings.HasPrefix(out.String(), "interceptor ") {
		t.Fatalf("version: code %d out %q err %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"inject", "--server", "wf"}, &IO{In: strings.NewReader("not json"), Out: &out, Err: &errb})
	if code != 0 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 {
		t.Fatalf("bad stdin: code %d out %q err %q", code, out.String(), errb.String())
	}
	// A command line that names no flag or command there is: a usage
	// error, exit 2 (issue 23: unknown subcommands printed help, exit 0).
	for _, args := range [][]string{{"token", "show", "--bogus"}, {"children", "rm"}, {"approvals", "frob"}, {"token", "frob"}, {"frob"}} {
		errb.Reset()
		code = run(args, &IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 2 || strings.Count(errb.String(), "\n") != 1 {
			t.Fatalf("%v exits %d with %q, want 2 and one line", args, code, errb.String())
		}
	}
	// A hook's bad flag still exits 0: the call must go on.
	if code = run([]string{"inject", "--bogus"}, &IO{In: strings.NewReader("{}"), Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("a hook with a bad flag exits %d, want 0", code)
	}
	// A command that ran and failed exits 1.
	if code = run([]string{"token", "show", "--server", "nothing-here", "--state-dir", t.TempDir()}, &IO{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 1 {
		t.Fatalf("a failed command exits %d, want 1", code)
	}
}

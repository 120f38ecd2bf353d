package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/cli"
	"github.com/interceptor-dev/interceptor/internal/cli/clitest"
	"github.com/interceptor-dev/interceptor/internal/cli/httpcmd"
)

// TestMain lets testscript run this test binary as the interceptor
// command, with the commands that link net/http, as interceptor-http.
func TestMain(m *testing.M) {
	f := cli.System()
	f.HTTP = httpcmd.Commands()
	clitest.Main(m, f)
}

// TestScripts runs interceptor's scripts against interceptor-http's CLI:
// every command they test behaves the same in both binaries.
func TestScripts(t *testing.T) {
	clitest.Run(t, filepath.Join("..", "interceptor", "testdata", "script"), filepath.Join("..", "..", "testdata"))
}

// TestVersionNamesItself: interceptor-http's version says interceptor-http
// (it said interceptor).
func TestVersionNamesItself(t *testing.T) {
	if code, out, errs := runHTTP("version"); code != 0 || !strings.HasPrefix(out, "interceptor-http ") {
		t.Fatalf("version: code %d, %q %q", code, out, errs)
	}
}

// runHTTP runs interceptor-http's CLI on args, in this process, with empty
// stdin: its exit code, stdout and stderr.
func runHTTP(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	f := cli.System()
	f.IO = &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}
	f.HTTP = httpcmd.Commands()
	code = cli.Main(args, f)
	return code, out.String(), errb.String()
}

// TestHelpNamesItself: interceptor-http's help shows its commands as
// interceptor-http's (it said "interceptor inbox", which interceptor
// refuses: only interceptor-http has the page); so does its completion
// script, which registers for the command it names.
func TestHelpNamesItself(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inbox", "--help"}, "\nUsage:\n  interceptor-http inbox "},
		{[]string{"--help"}, "Use \"interceptor-http [command] --help\""},
		{[]string{"completion", "bash"}, "__start_interceptor-http"},
	} {
		if code, out, errs := runHTTP(c.args...); code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%v: code %d, want %q in %q (stderr %q)", c.args, code, c.want, out, errs)
		}
	}
}

// TestNotesNameItself: what install says on stderr under interceptor-http
// starts with interceptor-http, as its errors do.
func TestNotesNameItself(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("INTERCEPTOR_STATE_DIR", "")
	bin := filepath.Join(t.TempDir(), "interceptor")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runHTTP("install", "claude-code", "--server", "wf", "--bin", bin, "--dry-run")
	if code != 0 || !strings.Contains("\n"+errs, "\ninterceptor-http: dry run: nothing written\n") {
		t.Fatalf("install --dry-run: code %d, stderr %q", code, errs)
	}
	if strings.Contains(errs, "interceptor: ") {
		t.Errorf("a line says interceptor: %q", errs)
	}
}

// TestHTTPScripts runs the scripts of the commands only interceptor-http
// serves (the inbox page).
func TestHTTPScripts(t *testing.T) {
	clitest.Run(t, filepath.Join("testdata", "script"), filepath.Join("..", "..", "testdata"))
}

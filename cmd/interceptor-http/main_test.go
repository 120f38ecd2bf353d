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
	var out, errb bytes.Buffer
	f := cli.System()
	f.IO = &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}
	f.HTTP = httpcmd.Commands()
	if code := cli.Main([]string{"version"}, f); code != 0 || !strings.HasPrefix(out.String(), "interceptor-http ") {
		t.Fatalf("version: code %d, %q %q", code, out.String(), errb.String())
	}
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
		var out, errb bytes.Buffer
		f := cli.System()
		f.IO = &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}
		f.HTTP = httpcmd.Commands()
		if code := cli.Main(c.args, f); code != 0 || !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: code %d, want %q in %q (stderr %q)", c.args, code, c.want, out.String(), errb.String())
		}
	}
}

// TestNotesNameItself: what install says on stderr under interceptor-http
// starts with interceptor-http, as its errors do.
func TestNotesNameItself(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("INTERCEPTOR_STATE_DIR", "")
	var out, errb bytes.Buffer
	f := cli.System()
	f.IO = &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}
	f.HTTP = httpcmd.Commands()
	bin := filepath.Join(t.TempDir(), "interceptor")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code := cli.Main([]string{"install", "claude-code", "--server", "wf", "--bin", bin, "--dry-run"}, f)
	if code != 0 || !strings.Contains("\n"+errb.String(), "\ninterceptor-http: dry run: nothing written\n") {
		t.Fatalf("install --dry-run: code %d, stderr %q", code, errb.String())
	}
	if strings.Contains(errb.String(), "interceptor: ") {
		t.Errorf("a line says interceptor: %q", errb.String())
	}
}

// TestHTTPScripts runs the scripts of the commands only interceptor-http
// serves (the inbox page).
func TestHTTPScripts(t *testing.T) {
	clitest.Run(t, filepath.Join("testdata", "script"), filepath.Join("..", "..", "testdata"))
}

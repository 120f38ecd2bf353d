package main

import (
	"path/filepath"
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

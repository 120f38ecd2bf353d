package main

import (
	"path/filepath"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/cli"
	"github.com/interceptor-dev/interceptor/internal/cli/clitest"
)

// TestMain lets testscript run this test binary as the interceptor
// command, so the scripts exercise this binary's CLI as a separate process.
func TestMain(m *testing.M) { clitest.Main(m, cli.System()) }

func TestScripts(t *testing.T) {
	clitest.Run(t, filepath.Join("testdata", "script"), filepath.Join("..", "..", "testdata"))
}

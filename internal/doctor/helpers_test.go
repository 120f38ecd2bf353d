package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// Doctor's tests set up configs the way users get them: with install, or
// written by hand, in a home and project dir of their own.

const testBin = "/usr/local/bin/interceptor"

func testEnv(t *testing.T) install.Env {
	t.Helper()
	root := t.TempDir()
	env := install.Env{Home: filepath.Join(root, "home"), Project: filepath.Join(root, "proj")}
	for _, d := range []string{env.Home, env.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// opts installs the hooks of server wf.
func opts(client string, scope install.Scope) install.Options {
	return install.Options{Client: client, Scope: scope, Server: "wf", Bin: testBin}
}

func mustInstall(t *testing.T, env install.Env, o install.Options) *install.Result {
	t.Helper()
	res, err := install.Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func hasFinding(rep Report, client, level, substr string) bool {
	for _, f := range findingsOf(rep, client) {
		if f.Level == level && strings.Contains(f.Message, substr) {
			return true
		}
	}
	return false
}

func findingsOf(rep Report, client string) []Finding {
	for _, c := range rep.Clients {
		if c.Client == client {
			return c.Findings
		}
	}
	return nil
}

// mustWrite and mustRead set up and read files, failing the test.
var mustWrite, mustRead = testfiles.Write, testfiles.Read

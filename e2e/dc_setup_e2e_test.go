//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Desktop Commander, the real MCP server from npm (issue 20), pinned, in a
// cached install of its own. --ignore-scripts skips its postinstall, which
// downloads ripgrep and Chrome: its search runs the system's rg (.ci/e2e
// installs ripgrep).
const dcVersion = "0.2.52"

var dcPackage = "@wonderwhy-er/desktop-commander@" + dcVersion

// dcSetup carries Desktop Commander's entry point (dist/index.js) into the
// namespace, or why installing it failed.
var dcSetup = optionalSetup{env: "E2E_DC", what: dcPackage}

// dcEntry is Desktop Commander's dist/index.js; it fails the test when the
// install failed.
func dcEntry(t interface{ Fatalf(string, ...any) }) string { return dcSetup.get(t) }

func installDC() (string, error) {
	dir, err := cachedInstall("dc", []string{dcPackage}, func(tmp string) error {
		pkg := fmt.Sprintf("{\"dependencies\": {%q: %q}}\n", "@wonderwhy-er/desktop-commander", dcVersion)
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(pkg), 0o644); err != nil {
			return err
		}
		cmd := exec.Command("npm", "install", "--prefix", tmp, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = tmp
		if out, err := runWithTimeout(cmd, 8*time.Minute); err != nil {
			return fmt.Errorf("npm install --ignore-scripts %s: %v\n%s", dcPackage, err, tail(string(out), 40))
		}
		return nil
	}, checkDCVersion)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "node_modules", "@wonderwhy-er", "desktop-commander", "dist", "index.js"), nil
}

// checkDCVersion checks the installed version.
func checkDCVersion(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@wonderwhy-er", "desktop-commander", "package.json"))
	if err != nil || !bytes.Contains(b, []byte(`"version": "`+dcVersion+`"`)) {
		return fmt.Errorf("%s: want version %s (%v)", dcPackage, dcVersion, err)
	}
	return nil
}

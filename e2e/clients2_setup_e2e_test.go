//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The clients of issue 16, pinned, in a cached install of their own (so
// the first four clients' cache stays valid when this list changes).
const (
	copilotVersion  = "1.0.102"
	clineVersion    = "3.0.65"
	droidVersion    = "0.225.2"
	kiloVersion     = "7.7.7"
	agentSDKVersion = "0.3.332"
	// The TypeScript SDK's v2 client, the first that speaks MCP 2026-07-28
	// (the 1.x @modelcontextprotocol/sdk does not).
	mcpClientVersion = "2.4.0"
)

var clients2Packages = []string{
	"@github/copilot@" + copilotVersion,
	"cline@" + clineVersion,
	// The registry has the droid launcher only at 0.225.1 and its Linux
	// binary only at 0.225.2: the launcher runs whichever is installed.
	"@factory/cli@0.225.1",
	"@factory/cli-linux-x64@" + droidVersion,
	"@kilocode/cli@" + kiloVersion,
	"@anthropic-ai/claude-agent-sdk@" + agentSDKVersion,
	"@modelcontextprotocol/client@" + mcpClientVersion,
}

// clients2Setup carries the npm prefix holding the clients above into the
// namespace, or why installing them failed.
var clients2Setup = optionalSetup{env: "E2E_CLIENTS2", what: strings.Join(clients2Packages, " ")}

// clients2Dir is the prefix the inner run uses; it fails the test when the
// install failed.
func clients2Dir(t interface{ Fatalf(string, ...any) }) string { return clients2Setup.get(t) }

func client2Bin(t interface{ Fatalf(string, ...any) }, name string) string {
	return filepath.Join(clients2Dir(t), "clients", "node_modules", ".bin", name)
}

func installClients2() (string, error) {
	return cachedInstall("clients2", clients2Packages, func(tmp string) error {
		return npmInstall(filepath.Join(tmp, "clients"), clients2Packages...)
	}, checkVersions2)
}

// checkVersions2 runs each binary's --version. Copilot unpacks itself into
// its cache on first start (~20 s): into dir/copilot-cache, shared by every
// scenario (COPILOT_CACHE_HOME).
//
// A complete cache (Copilot already unpacked) is checked by the versions
// in the packages' package.json: under load one of these start-ups took
// over its two minutes, and the complete cache was reinstalled, which fails
// without the registry.
func checkVersions2(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return checkPackageVersions(filepath.Join(dir, "clients"), clients2Packages)
	}
	bin := filepath.Join(dir, "clients", "node_modules", ".bin")
	for _, c := range []struct{ bin, want string }{
		{"copilot", copilotVersion}, {"cline", clineVersion}, {"droid", droidVersion}, {"kilo", kiloVersion},
	} {
		cmd := exec.Command(filepath.Join(bin, c.bin), "--version")
		cmd.Env = append(os.Environ(), "COPILOT_CACHE_HOME="+filepath.Join(dir, "copilot-cache"), "DISABLE_AUTOUPDATER=1", "KILO_DISABLE_AUTOUPDATE=1")
		out, err := runWithTimeout(cmd, 2*time.Minute)
		if err != nil || !strings.Contains(string(out), c.want) {
			return fmt.Errorf("%s --version: want %s, got %q (err %v)", c.bin, c.want, tail(string(out), 5), err)
		}
	}
	for _, p := range []struct{ name, want string }{
		{"@anthropic-ai/claude-agent-sdk", agentSDKVersion}, {"@modelcontextprotocol/client", mcpClientVersion},
	} {
		pkg, err := os.ReadFile(filepath.Join(dir, "clients", "node_modules", filepath.FromSlash(p.name), "package.json"))
		if err != nil || !strings.Contains(string(pkg), `"version": "`+p.want+`"`) {
			return fmt.Errorf("%s: want %s (%v)", p.name, p.want, err)
		}
	}
	return nil
}

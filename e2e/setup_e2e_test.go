//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Pinned client versions. Claude Code 2.1.332 is the version this suite was
// verified with (clients.md observed 2.1.328).
const (
	claudeVersion   = "2.1.332"
	codexVersion    = "0.171.0"
	geminiVersion   = "0.61.0"
	opencodeVersion = "1.18.33"
)

var clientPackages = []string{
	"@anthropic-ai/claude-code@" + claudeVersion,
	"@openai/codex@" + codexVersion,
	"@google/gemini-cli@" + geminiVersion,
	"opencode-ai@" + opencodeVersion,
}

// OpenCode installs @opencode-ai/plugin (same version) into every config
// dir at start and stalls for minutes without a registry unless node_modules
// and a package-lock.json listing it are already there: the suite installs
// it once and links it into each config dir.
var opencodePluginPackage = "@opencode-ai/plugin@" + opencodeVersion

// Environment passed from the outer run to the one inside the namespace.
const (
	envInNetns     = "E2E_IN_NETNS"
	envInterceptor = "E2E_INTERCEPTOR"
	envTokenServer = "E2E_TOKENSERVER"
	envClients     = "E2E_CLIENTS"  // npm prefix holding node_modules/.bin/{claude,codex,gemini,opencode}
	envOCPlugin    = "E2E_OCPLUGIN" // dir with package.json, package-lock.json, node_modules
	envRepo        = "E2E_REPO"
	envIndexServer = "E2E_INDEXSERVER"
)

// Paths of what the outer run prepared, read inside the namespace.
var bins struct {
	interceptor, tokenServer, clients, ocPlugin, repo string
}

func TestMain(m *testing.M) {
	if os.Getenv(envInNetns) == "1" {
		bins.interceptor = os.Getenv(envInterceptor)
		bins.tokenServer = os.Getenv(envTokenServer)
		bins.clients = os.Getenv(envClients)
		bins.ocPlugin = os.Getenv(envOCPlugin)
		bins.repo = os.Getenv(envRepo)
		if err := checkIsolated(); err != nil {
			fmt.Fprintln(os.Stderr, "E2E SETUP FAILED:", err)
			os.Exit(1)
		}
		code := m.Run()
		printClientCPU(os.Stderr)
		os.Exit(code)
	}
	os.Exit(outer())
}

func setupFailed(format string, a ...any) int {
	msg := fmt.Sprintf(format, a...)
	bar := strings.Repeat("!", 78)
	fmt.Fprintf(os.Stderr, "\n%s\nE2E SETUP FAILED: %s\nThe end-to-end suite cannot run; this is a failure, not a skip.\n%s\n\n", bar, msg, bar)
	return 1
}

// outer prepares clients and binaries, then re-runs this test binary inside
// a user+network namespace where only loopback is up.
func outer() int {
	start := time.Now()
	for _, tool := range []string{"npm", "node", "unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			return setupFailed("%s not found on PATH (.ci/e2e installs what is missing)", tool)
		}
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		return setupFailed("%v", err)
	}
	work, err := os.MkdirTemp("", "interceptor-e2e-bin-")
	if err != nil {
		return setupFailed("%v", err)
	}
	defer os.RemoveAll(work)

	// The installs (the registry's time on a clean machine, Copilot's
	// first start) run beside each other and beside the build (CPU).
	var (
		inst                  sync.WaitGroup
		clients, ocPlugin     string
		clientsErr            error
		clients2, dc, browser installed
	)
	inst.Add(4)
	go func() { defer inst.Done(); clients, ocPlugin, clientsErr = installClients() }()
	go func() { defer inst.Done(); clients2.where, clients2.err = installClients2() }()
	go func() { defer inst.Done(); dc.where, dc.err = installDC() }()
	go func() { defer inst.Done(); browser.where, browser.err = installBrowserServers() }()
	if os.Getenv("E2E_PREPARE_ONLY") == "1" {
		// Only fill the client cache (CI does it while go test runs).
		inst.Wait()
		for _, err := range []error{clientsErr, clients2.err, dc.err, browser.err} {
			if err != nil {
				return setupFailed("E2E_PREPARE_ONLY: %v", err)
			}
		}
		fmt.Fprintf(os.Stderr, "e2e: E2E_PREPARE_ONLY: the clients are installed (%s); no test ran\n", time.Since(start).Round(time.Millisecond))
		return 0
	}

	t0 := time.Now()
	interceptor := filepath.Join(work, "interceptor")
	indexServer := filepath.Join(work, "indexserver")
	tokenServer := filepath.Join(work, "tokenserver")
	// One go build for all: their common packages compile once, on both
	// cores; each lands in work under its package's name. interceptor-hook
	// lands beside interceptor, as releases and the quickstart put it, so
	// install writes it into the hooks: the clients run the hook binary
	// users' clients run.
	pkgs := []string{"./cmd/interceptor", "./cmd/interceptor-hook", "./e2e/tokenserver", "./e2e/indexserver"}
	if prebuilt := os.Getenv("E2E_INTERCEPTOR_BIN"); prebuilt != "" {
		// Test a given binary (a release build, or while the tree does not build).
		if interceptor, err = filepath.Abs(prebuilt); err != nil {
			inst.Wait()
			return setupFailed("E2E_INTERCEPTOR_BIN: %v", err)
		}
		if _, err := os.Stat(interceptor); err != nil {
			inst.Wait()
			return setupFailed("E2E_INTERCEPTOR_BIN: %v", err)
		}
		fmt.Fprintf(os.Stderr, "e2e: E2E_INTERCEPTOR_BIN: testing %s (and an interceptor-hook beside it, if any), not a build of this tree\n", interceptor)
		pkgs = pkgs[2:]
	}
	cmd := exec.Command(goTool(), append([]string{"build", "-o", work + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		inst.Wait()
		return setupFailed("go build %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	fmt.Fprintf(os.Stderr, "e2e: built %d binaries in %s\n", len(pkgs), time.Since(t0).Round(time.Millisecond))
	inst.Wait()
	if clientsErr != nil {
		return setupFailed("cannot install the pinned clients from the npm registry: %v", clientsErr)
	}
	fmt.Fprintf(os.Stderr, "e2e: setup (installs and build) took %s\n", time.Since(start).Round(time.Millisecond))

	// "$0" is the test binary: the inner run gets the same -test.* flags.
	cmd = exec.Command("unshare", append([]string{"--user", "--map-root-user", "--net", "--",
		"sh", "-c", `ip link set lo up && exec "$0" "$@"`, os.Args[0]}, os.Args[1:]...)...)
	if os.Geteuid() == 0 {
		// Run as root, the namespace maps uids and gids 0-65535 to
		// themselves (unshare's --map-users needs newuidmap), so a test can
		// run a process as another local user (the inbox's, uid 65534).
		ids := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}
		cmd = exec.Command("sh", append([]string{"-c", `ip link set lo up && exec "$0" "$@"`, os.Args[0]}, os.Args[1:]...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
			UidMappings: ids, GidMappings: ids, GidMappingsEnableSetgroups: true}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(),
		envInNetns+"=1", envInterceptor+"="+interceptor, envTokenServer+"="+tokenServer,
		envClients+"="+clients, envOCPlugin+"="+ocPlugin, envRepo+"="+repo, envIndexServer+"="+indexServer)
	cmd.Env = append(cmd.Env, clients2Setup.export(clients2.where, clients2.err))
	cmd.Env = append(cmd.Env, dcSetup.export(dc.where, dc.err))
	cmd.Env = append(cmd.Env, browserSetup.export(browser.where, browser.err))
	err = cmd.Run()
	fmt.Fprintf(os.Stderr, "e2e: whole run (setup + tests) took %s\n", time.Since(start).Round(time.Second))
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return ee.ExitCode()
	default:
		return setupFailed("running the tests inside `unshare -rn`: %v", err)
	}
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// checkIsolated makes sure the inner run sees only an up loopback interface.
func checkIsolated() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	var names []string
	up := false
	for _, i := range ifs {
		names = append(names, i.Name)
		if i.Flags&net.FlagLoopback != 0 && i.Flags&net.FlagUp != 0 {
			up = true
		}
	}
	if len(ifs) != 1 || !up {
		return fmt.Errorf("want only an up loopback interface inside the namespace, have %v (up=%v)", names, up)
	}
	return nil
}

// installClients installs the pinned clients (and OpenCode's plugin
// package) into a cache directory keyed by the versions, once.
func installClients() (clients, ocPlugin string, err error) {
	dir, err := cachedInstall("clients", append(slices.Clone(clientPackages), opencodePluginPackage), func(tmp string) error {
		if err := npmInstall(filepath.Join(tmp, "clients"), clientPackages...); err != nil {
			return err
		}
		return npmInstall(filepath.Join(tmp, "ocplugin"), opencodePluginPackage)
	}, func(d string) error { return checkVersions(filepath.Join(d, "clients")) })
	if err != nil {
		return "", "", err
	}
	return filepath.Join(dir, "clients"), filepath.Join(dir, "ocplugin"), nil
}

func npmInstall(prefix string, pkgs ...string) error {
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return err
	}
	// A package.json listing exact versions makes package-lock.json list
	// them too (OpenCode checks the lock before skipping its own install).
	deps := make([]string, 0, len(pkgs))
	for _, p := range pkgs {
		i := strings.LastIndex(p, "@")
		deps = append(deps, fmt.Sprintf("%q: %q", p[:i], p[i+1:]))
	}
	if err := os.WriteFile(filepath.Join(prefix, "package.json"), []byte("{\"dependencies\": {"+strings.Join(deps, ", ")+"}}\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.Command("npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = prefix
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("npm install %s: %v\n%s", strings.Join(pkgs, " "), err, tail(out.String(), 40))
		}
	case <-time.After(8 * time.Minute):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("npm install %s: no answer after 8 minutes (registry unreachable?)\n%s", strings.Join(pkgs, " "), tail(out.String(), 40))
	}
	return nil
}

// checkVersions runs each client's --version and compares with the pin.
// checkVersions reads the installed version of each pinned client from its
// package.json. It used to run each client's --version: four Node start-ups
// per run, and with the machine overloaded one took over its minute, so a
// complete cache was taken for a broken one and reinstalled, which fails
// without the registry (the tests start every client anyway).
func checkVersions(prefix string) error {
	if err := checkPackageVersions(prefix, clientPackages); err != nil {
		return err
	}
	for _, pkg := range clientPackages {
		if _, err := os.Stat(clientBinIn(prefix, pkg[:strings.LastIndex(pkg, "@")])); err != nil {
			return err
		}
	}
	return nil
}

// checkPackageVersions: each name@version of pkgs is installed under prefix
// at that version, by its package.json.
func checkPackageVersions(prefix string, pkgs []string) error {
	for _, pkg := range pkgs {
		i := strings.LastIndex(pkg, "@")
		name, want := pkg[:i], pkg[i+1:]
		path := filepath.Join(prefix, "node_modules", filepath.FromSlash(name), "package.json")
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var meta struct{ Version string }
		if err := json.Unmarshal(b, &meta); err != nil || meta.Version != want {
			return fmt.Errorf("%s: version %q, want %s (err %v)", path, meta.Version, want, err)
		}
	}
	return nil
}

// clientBinIn is the command a pinned client package installs.
func clientBinIn(prefix, pkg string) string {
	bin := map[string]string{"@anthropic-ai/claude-code": "claude", "@openai/codex": "codex",
		"@google/gemini-cli": "gemini", "opencode-ai": "opencode"}[pkg]
	return filepath.Join(prefix, "node_modules", ".bin", bin)
}

func runWithTimeout(cmd *exec.Cmd, d time.Duration) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.Bytes(), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return out.Bytes(), fmt.Errorf("timed out after %s", d)
	}
}

// tail returns the last n lines of s, each cut to 400 bytes.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 400 {
			lines[i] = l[:400] + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// installed is where an optional install is, or why it failed.
type installed struct {
	where string
	err   error
}

// optionalSetup is an install that only some tests need, passed from the
// outer run to the one inside the namespace in env: where it is, or (in
// env_ERR) why it failed; its tests then fail, the others still run.
type optionalSetup struct {
	env  string
	what string // what was installed, for the failure
}

// export is the environment entry for the inner run.
func (s optionalSetup) export(where string, err error) string {
	if err != nil {
		return s.env + "_ERR=" + strings.ReplaceAll(err.Error(), "\n", " | ")
	}
	return s.env + "=" + where
}

// get is where the install is; it fails the test when the install failed.
func (s optionalSetup) get(t interface{ Fatalf(string, ...any) }) string {
	if e := os.Getenv(s.env + "_ERR"); e != "" {
		t.Fatalf("E2E SETUP FAILED: cannot install %s: %s", s.what, e)
	}
	return os.Getenv(s.env)
}

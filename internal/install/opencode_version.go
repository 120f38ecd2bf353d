package install

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// OpenCode 2 replaced the plugin API (Plugin.define({id, setup}),
// ctx.tool.hook) and refuses a V1 plugin such as recipes/opencode/
// interceptor.ts ("Plugin must export a default definition with an id and
// an effect or setup function"): the user sees nothing wrong and no handle
// is carried. So install writes the shim of the installed major version,
// and doctor flags the other one.

// shimV2Marker is the line that tells the V2 shim from the V1 one.
const shimV2Marker = "\n// API: v2."

// ShimAPI is the OpenCode plugin API major version a shim is written for.
func ShimAPI(doc string) int {
	if strings.Contains(doc, shimV2Marker) {
		return 2
	}
	return 1
}

var semver = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`)

// OpenCodeMajor is the major version of the OpenCode on PATH, from the
// first x.y.z that `opencode --version` prints (1.18.33 prints "1.18.33";
// 2.x's format was not seen, threads quote a bare "2.0.12"), or 2 when
// only OpenCode 2's beta name `opencode2` is on PATH. 0: none found.
func OpenCodeMajor() (major int, version string) {
	return openCodeMajor()
}

// openCodeMajor is a variable so tests never run a real OpenCode.
var openCodeMajor = func() (int, string) {
	if v := versionOf(shimOf.Name); v != "" {
		return majorOf(v), v
	}
	if v := versionOf(shimOf.Name + "2"); v != "" {
		return 2, v
	}
	return 0, ""
}

// versionOf runs `bin --version` for at most 5 s (OpenCode starts a Bun
// runtime) and returns its first x.y.z.
func versionOf(bin string) string {
	path, err := exec.LookPath(bin)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, "--version").Output()
	return semver.FindString(string(out))
}

func majorOf(v string) int {
	m := semver.FindStringSubmatch(v)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// StubOpenCodeMajor makes install see an OpenCode of the given major
// version until restore is called: for doctor's tests, which install
// shims of either API.
func StubOpenCodeMajor(major int, version string) (restore func()) {
	old := openCodeMajor
	openCodeMajor = func() (int, string) { return major, version }
	return func() { openCodeMajor = old }
}

package install

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// stubOpenCode makes install and doctor see an OpenCode of version v ("":
// none) for the test.
func stubOpenCode(t *testing.T, major int, v string) {
	t.Helper()
	old := openCodeMajor
	openCodeMajor = func() (int, string) { return major, v }
	t.Cleanup(func() { openCodeMajor = old })
}

// install writes the shim of the installed OpenCode's plugin API: V2
// (default export {id, setup}) under 2.x, V1 (the named export) otherwise,
// and switches when the version changes; uninstall takes either out.
func TestOpenCodeShimFollowsTheVersion(t *testing.T) {
	env := testEnv(t)
	o := opts("opencode", User)
	path, _ := ConfigPath(env, "opencode", User)
	for _, c := range []struct {
		major   int
		version string
		api     int
	}{{2, "2.0.17", 2}, {1, "1.18.33", 1}, {0, "", 1}, {2, "2.0.12", 2}} {
		stubOpenCode(t, c.major, c.version)
		res, err := Install(env, o)
		if err != nil {
			t.Fatal(err)
		}
		doc := mustRead(t, path)
		v2 := strings.Contains(doc, "\nexport default {\n  id: \"interceptor\",\n  setup:")
		v1 := strings.Contains(doc, "\nexport const Interceptor = async () =>")
		if ShimAPI(doc) != c.api || v2 != (c.api == 2) || v1 != (c.api == 1) {
			t.Fatalf("OpenCode %q: wrote API v%d (v2 export %v, v1 export %v), want v%d", c.version, ShimAPI(doc), v2, v1, c.api)
		}
		if sc, ok := readShim(doc); !ok || !slicesEqual(sc.servers(), []string{"wf"}) || sc.bin != testBin {
			t.Fatalf("OpenCode %q: shim reads as %+v, %v", c.version, sc, ok)
		}
		note := strings.Join(res.Notes, "\n")
		if (c.api == 2) != strings.Contains(note, "\"codemode\": false") {
			t.Errorf("OpenCode %q: notes %q", c.version, note)
		}
	}
	if _, err := Uninstall(env, o); err != nil || exists(path) {
		t.Fatalf("uninstall: %v, file left: %v", err, exists(path))
	}
	// Kilo CLI keeps the V1 shim whatever OpenCode says.
	stubOpenCode(t, 2, "2.0.17")
	if _, err := Install(env, opts("kilo", User)); err != nil {
		t.Fatal(err)
	}
	kpath, _ := ConfigPath(env, "kilo", User)
	if ShimAPI(mustRead(t, kpath)) != 1 {
		t.Error("Kilo got the V2 shim")
	}
	d := opts("opencode", Project)
	d.Deliver = true
	d.Server = "human"
	if _, err := Install(env, d); err == nil || !strings.Contains(err.Error(), "--deliver is not supported for OpenCode 2.0.17") {
		t.Errorf("--deliver under 2.x: %v", err)
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// tsTypes are the annotations the V2 shim uses; stripped, it is the
// JavaScript node runs. A new annotation the pattern misses makes node
// fail to parse the shim, and the test with it.
var tsTypes = regexp.MustCompile(`([\w)])\s*:\s*(?:Promise<any>|Promise<void>|any\[\]|string\[\]|any|unknown|string|boolean|void)(\s*[,)={])`)

// The V2 shim install writes, run by node against a stub of OpenCode 2's
// plugin runtime (testdata/opencode-v2: the types it mirrors, vendored from
// OpenCode's sources) with the real interceptor binary: a start tool's
// token is captured and redacted from what the model reads, the next call
// gets it, another server's call is left alone, a stand-in naming no held
// token is refused, and a failed start retires the token. Not type-checked
// with tsc (none here): node runs it with the annotations stripped.
func TestOpenCodeV2ShimRunsAgainstItsTypes(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "interceptor")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/interceptor").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := testEnv(t)
	stubOpenCode(t, 2, "2.0.17")
	o := opts("opencode", User)
	o.Bin = bin
	o.Hook.Redact = true
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	path, _ := ConfigPath(env, "opencode", User)
	js := mustRead(t, path)
	for prev := ""; prev != js; { // matches share their edges: again until none is left
		prev, js = js, tsTypes.ReplaceAllString(js, "$1$2")
	}
	mustWrite(t, filepath.Join(dir, "shim.mjs"), js, 0o644)
	stub, err := os.ReadFile(filepath.Join("testdata", "opencode-v2", "stub.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "stub.mjs"), string(stub), 0o644)

	tok := "f3a9c2e17b6d4058a1e9c3b7d2f60a4e"
	started := "Session started.\nsession_token: " + tok + "\n"
	type step map[string]any
	steps := []step{
		{"tool": "wf_start_session", "id": "c1", "input": map[string]any{}, "result": map[string]any{"output": started, "content": []any{map[string]any{"type": "text", "text": started}}}},
		{"before": true, "tool": "wf_next_step", "id": "c2", "input": map[string]any{"step": "one"}},
		{"before": true, "tool": "other_next_step", "id": "c3", "input": map[string]any{"step": "one"}},
		{"before": true, "tool": "wf_next_step", "id": "c4", "input": map[string]any{"step": "two", "session_token": "[session_token 00000000 held by interceptor]"}},
		{"tool": "wf_start_session", "id": "c5", "input": map[string]any{}, "error": "workspace is locked"},
		{"before": true, "tool": "wf_next_step", "id": "c6", "input": map[string]any{"step": "three"}},
	}
	arg, _ := json.Marshal(steps)
	cmd := exec.Command(node, filepath.Join(dir, "stub.mjs"), string(arg))
	cmd.Env = append(os.Environ(), "INTERCEPTOR_STATE_DIR="+filepath.Join(dir, "state"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s%s", err, out, stderr.String())
	}
	t.Logf("node:\n%s", out)
	var got []map[string]json.RawMessage
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("node printed %q", sc.Text())
		}
		got = append(got, m)
	}
	if len(got) != len(steps) {
		t.Fatalf("%d results for %d steps:\n%s", len(got), len(steps), out)
	}
	read := string(got[0]["read"])
	if strings.Contains(read, tok) || !strings.Contains(read, "held by interceptor") {
		t.Errorf("the model reads %s, want the token replaced by its stand-in", read)
	}
	if want := `{"step":"one","session_token":"` + tok + `"}`; string(got[1]["called"]) != want {
		t.Errorf("next_step called with %s, want %s", got[1]["called"], want)
	}
	if want := `{"step":"one"}`; string(got[2]["called"]) != want {
		t.Errorf("another server's call: %s, want %s", got[2]["called"], want)
	}
	if got[3]["refused"] == nil {
		t.Errorf("a stand-in naming no held token was not refused: %v", got[3])
	}
	if want := `{"step":"three"}`; string(got[5]["called"]) != want {
		t.Errorf("after a failed start: %s, want no token", got[5]["called"])
	}
	_ = hooks.OpenCodeClient
}

// Tests never ask the machine's OpenCode: without a stub, install writes
// the V1 shim, as with no OpenCode on PATH.
func init() { openCodeMajor = func() (int, string) { return 0, "" } }

package install

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/testfiles"
	"github.com/tailscale/hujson"
	"github.com/tidwall/gjson"
)

const testBin = "/usr/local/bin/interceptor"

func testEnv(t *testing.T) Env {
	t.Helper()
	root := t.TempDir()
	env := Env{Home: filepath.Join(root, "home"), Project: filepath.Join(root, "proj")}
	for _, d := range []string{env.Home, env.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

func opts(client string, scope Scope) Options {
	return Options{Client: client, Scope: scope, Server: "wf", Bin: testBin}
}

// existing configs with unrelated keys and hooks, in several layouts; each
// must come back byte for byte after install + uninstall.
var preexisting = map[string][]string{
	"claude-code": {
		"{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}\n    ],\n    \"Stop\": []\n  },\n  \"env\": {\"A\": \"1\", \"N\": 1.50}\n}\n",
		`{"permissions":{"allow":["Bash(ls)"]},"hooks":{"PostToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"fmt \"$F\""}]}]}}`,
		"{\n\t\"statusLine\": {\"type\": \"command\", \"command\": \"x\"}\n}",
		"{\n  \"hooks\": {}\n}\n",
		"{\n  \"hooks\": {\n    \"PreToolUse\": []\n  }\n}\n",
	},
	"codex": {
		"{\n    \"hooks\": {\n        \"SessionStart\": [\n            {\n                \"hooks\": [{\"type\": \"command\", \"command\": \"start.sh\"}]\n            }\n        ]\n    }\n}\n",
	},
	"gemini": {
		"{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n  \"mcpServers\": {\"wf\": {\"command\": \"wf-server\", \"trust\": true}}\n}\n",
		// Gemini CLI reads comments (checked with 0.61.0): every one stays.
		"// settings\n{\n  /* auth */\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}, // key in env\n  \"hooks\": {\n    // mine\n    \"BeforeTool\": [\n      {\"matcher\": \"x\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]} // log\n    ]\n  } // end\n}\n// bye\n",
		"{\n  // nothing here yet\n}\n",
		"{\n  \"hooks\": {\n    // none yet\n  },\n  \"ui\": {\"theme\": \"dark\"} /* last */\n}\n",
		"{\n  \"hooks\": {\n    \"BeforeTool\": [ // empty\n    ],\n    \"AfterTool\": [\n      /* a */ {\"hooks\": [{\"type\": \"command\", \"command\": \"a /* not a comment */ // b\"}]} /* b\n         spans lines */\n    ]\n  }\n}\n",
		`{/* a */"security":{"auth":{"selectedType":"gemini-api-key"}} /* b */}`,
	},
	"droid": {
		"{\n  \"model\": \"custom:e2e\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Execute\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit.sh\"}]}\n    ]\n  }\n}\n",
	},
	"copilot": {
		"{\n  \"version\": 1,\n  \"hooks\": {\n    \"sessionStart\": [{\"type\": \"command\", \"bash\": \"echo hi\"}]\n  }\n}\n",
	},
	"cursor": {
		"{\n  \"version\": 1,\n  \"hooks\": {\n    \"preToolUse\": [\n      {\"command\": \"./audit.sh\"}\n    ]\n  }\n}\n",
	},
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	for _, client := range Clients() {
		for _, scope := range []Scope{User, Project} {
			docs := append([]string{""}, preexisting[client]...)
			for i, pre := range docs {
				t.Run(client+"/"+string(scope)+"/"+string(rune('a'+i)), func(t *testing.T) {
					env := testEnv(t)
					o := opts(client, scope)
					o.Hook.Redact = true
					path, err := ConfigPath(env, client, scope)
					if err != nil {
						t.Fatal(err)
					}
					if pre != "" {
						mustWrite(t, path, pre, 0o640)
					}
					res, err := Install(env, o)
					if err != nil {
						t.Fatal(err)
					}
					if !res.Changed || res.Path != path || res.Created != (pre == "") {
						t.Fatalf("install result %+v", res)
					}
					after := mustRead(t, path)
					checkInstalled(t, client, after)
					checkCommentsKept(t, pre, after)
					if pre != "" {
						if got := mustRead(t, path+BackupSuffix); got != pre {
							t.Fatalf("backup %q, want the original %q", got, pre)
						}
						if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
							t.Fatalf("mode %v, want 0640 kept", fi.Mode().Perm())
						}
					} else if exists(path + BackupSuffix) {
						t.Fatal("a backup of a file that did not exist")
					}
					// Idempotent.
					res, err = Install(env, o)
					if err != nil || res.Changed || mustRead(t, path) != after {
						t.Fatalf("second install changed something: %+v %v", res, err)
					}
					// Uninstall restores the bytes.
					res, err = Uninstall(env, o)
					if err != nil || !res.Changed {
						t.Fatalf("uninstall: %+v %v", res, err)
					}
					if pre == "" {
						if exists(path) {
							t.Fatalf("uninstall left the file install created: %q", mustRead(t, path))
						}
					} else if got := mustRead(t, path); got != pre {
						t.Fatalf("after uninstall:\n%s\nwant byte-identical:\n%s", got, pre)
					}
					if exists(path + BackupSuffix) {
						t.Fatal("the backup stays although the file is back to it")
					}
					res, err = Uninstall(env, o)
					if err != nil || res.Changed {
						t.Fatalf("second uninstall: %+v %v", res, err)
					}
				})
			}
		}
	}
}

// checkCommentsKept checks every comment of before is still in after.
func checkCommentsKept(t *testing.T, before, after string) {
	t.Helper()
	v, err := hujson.Parse([]byte(before))
	if err != nil {
		return // not a JSON config (the OpenCode shim), or none
	}
	for x := range v.All() {
		for _, extra := range []hujson.Extra{x.BeforeExtra, x.AfterExtra} {
			if c := strings.TrimSpace(string(extra)); c != "" && !strings.Contains(after, c) {
				t.Fatalf("comment %q lost:\n%s", c, after)
			}
		}
	}
}

// checkInstalled checks the written config is valid and holds the hooks.
func checkInstalled(t *testing.T, client, doc string) {
	t.Helper()
	if client == "cline" {
		if want := "\nexec " + testBin + " inject --client cline --server wf\n"; !strings.HasSuffix(doc, want[1:]) || !strings.HasPrefix(doc, "#!/bin/sh\n# interceptor hook for Cline, written by `interceptor install cline`") {
			t.Fatalf("script %q, want it to end in %q", doc, want)
		}
		return
	}
	if isPlugin(client) {
		for _, want := range []string{`const BIN: string = "` + testBin + `"`, `const ARGS: string[] = ["--server", "wf"]`, `const CAPTURE_ARGS: string[] = ["--redact"]`} {
			if !strings.Contains(doc, want+"\n") {
				t.Fatalf("shim lacks %q", want)
			}
		}
		return
	}
	plain := standardJSON([]byte(doc))
	if plain == nil {
		t.Fatalf("not valid JSON:\n%s", doc)
	}
	doc = string(plain)
	want := map[string][]string{
		"claude-code": {"PreToolUse", "inject", "PostToolUse", "capture --client claude-code --server wf --redact", "SessionEnd", "clear"},
		"codex":       {"PreToolUse", "inject", "PostToolUse", "capture --client codex --server wf"},
		"gemini":      {"BeforeTool", "inject", "AfterTool", "capture --client gemini --server wf"},
		"cursor":      {"preToolUse", "inject", "postToolUse", "capture --client cursor --server wf --redact"},
		"copilot":     {"preToolUse", "inject", "postToolUse", "capture --client copilot --server wf --redact"},
		"droid":       {"PreToolUse", "inject", "PostToolUse", "capture --client droid --server wf"},
	}[client]
	if want == nil {
		t.Fatalf("no check for client %s", client)
	}
	for i := 0; i < len(want); i += 2 {
		var cmds []string
		gjson.Get(doc, "hooks."+want[i]).ForEach(func(_, g gjson.Result) bool {
			if c := g.Get("command"); c.Exists() {
				cmds = append(cmds, c.Str)
			}
			g.Get("hooks.#.command").ForEach(func(_, c gjson.Result) bool {
				cmds = append(cmds, c.Str)
				return true
			})
			return true
		})
		ok := false
		for _, c := range cmds {
			if strings.HasPrefix(c, testBin+" ") && strings.Contains(c, " "+want[i+1]) {
				ok = true
				if (client == "codex" || client == "gemini" || client == "droid") && strings.Contains(c, "--redact") {
					t.Fatalf("%s got --redact: %s", client, c)
				}
			}
		}
		if !ok {
			t.Fatalf("hooks.%s lacks %q: %v\n%s", want[i], want[i+1], cmds, doc)
		}
	}
}

func TestMatchersAndTimeouts(t *testing.T) {
	env := testEnv(t)
	for client, want := range map[string][2]string{
		"claude-code": {`^mcp__my_server__`, "10"},
		"codex":       {`^mcp__my_server__`, "10"},
		"gemini":      {`^mcp_my\.server_`, "10000"}, // verbatim (observed: mcp_wf.v2_probe)
	} {
		o := opts(client, User)
		o.Server = "my.server"
		res, err := Install(env, o)
		if err != nil {
			t.Fatal(err)
		}
		doc := mustRead(t, res.Path)
		first := gjson.Get(doc, "hooks|@values|0|0")
		if m := first.Get("matcher").Str; m != want[0] {
			t.Errorf("%s matcher %q, want %q", client, m, want[0])
		}
		if to := first.Get("hooks.0.timeout").Raw; to != want[1] {
			t.Errorf("%s timeout %s, want %s", client, to, want[1])
		}
	}
	// Claude Code's SessionEnd group has no matcher.
	doc := mustRead(t, filepath.Join(env.Home, ".claude", "settings.json"))
	if gjson.Get(doc, "hooks.SessionEnd.0.matcher").Exists() {
		t.Error("SessionEnd group has a matcher")
	}
}

func TestHookOptionsPassThroughAndQuoting(t *testing.T) {
	env := testEnv(t)
	o := opts("claude-code", User)
	o.Bin = "/opt/my tools/it's/interceptor"
	o.Hook = HookOptions{Options: carry.Options{Redact: true, Arg: "tok", MetaKey: "session token", SkipTools: []string{"start_session", "resume"}, KeepIf: []string{}}, StateDir: "/var/state dir"}
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustRead(t, res.Path)
	inject := gjson.Get(doc, "hooks.PreToolUse.0.hooks.0.command").Str
	argv, ok := shellSplit(inject)
	if !ok {
		t.Fatalf("cannot split %q", inject)
	}
	want := []string{o.Bin, "inject", "--client", "claude-code", "--server", "wf", "--arg", "tok", "--meta-key", "session token",
		"--skip-tool", "start_session", "--skip-tool", "resume", "--keep-if=", "--state-dir", "/var/state dir"}
	if strings.Join(argv, "|") != strings.Join(want, "|") {
		t.Fatalf("argv %q\nwant %q", argv, want)
	}
	clear := gjson.Get(doc, "hooks.SessionEnd.0.hooks.0.command").Str
	if argv, _ := shellSplit(clear); strings.Join(argv[2:], " ") != "--client claude-code --server wf --state-dir /var/state dir" {
		t.Fatalf("clear %q", clear)
	}
	if !strings.HasSuffix(gjson.Get(doc, "hooks.PostToolUse.0.hooks.0.command").Str, " --redact") {
		t.Fatal("capture lacks --redact")
	}
}

func TestReinstallUpdatesCommandInPlace(t *testing.T) {
	env := testEnv(t)
	o := opts("claude-code", User)
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	// The user raises a timeout by hand; a reinstall with --redact changes
	// only the command.
	doc := strings.Replace(mustRead(t, res.Path), `"timeout": 10`, `"timeout": 30`, 1)
	mustWrite(t, res.Path, doc, 0o644)
	o.Hook.Redact = true
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, res.Path)
	want := strings.Replace(doc, "capture --client claude-code --server wf\"", "capture --client claude-code --server wf --redact\"", 1)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRefusesWhatItCannotEdit(t *testing.T) {
	for name, doc := range map[string]string{
		"jsonc":     "{\n  // my settings\n  \"model\": \"opus\"\n}\n",
		"invalid":   "{\"model\": }",
		"array":     "[1, 2]",
		"hooks-str": `{"hooks": "none"}`,
		"event-obj": `{"hooks": {"PreToolUse": {}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			env := testEnv(t)
			path := filepath.Join(env.Home, ".claude", "settings.json")
			mustWrite(t, path, doc, 0o644)
			_, err := Install(env, opts("claude-code", User))
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("err %v, want a refusal naming the file", err)
			}
			if name == "jsonc" && !strings.Contains(err.Error(), "comments") {
				t.Fatalf("err %v does not say why", err)
			}
			if mustRead(t, path) != doc || exists(path+BackupSuffix) {
				t.Fatal("a refused file was touched")
			}
		})
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".codex", "hooks.json")
	pre := "{\n  \"hooks\": {}\n}\n"
	mustWrite(t, path, pre, 0o644)
	o := opts("codex", User)
	o.DryRun = true
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || !strings.Contains(res.Diff, "+      {\n") || !strings.Contains(res.Diff, "\n--- a/") || !strings.Contains(res.Diff, `+            "command": "/usr/local/bin/interceptor inject --client codex --server wf",`) {
		t.Fatalf("diff:\n%s", res.Diff)
	}
	if mustRead(t, path) != pre || exists(path+BackupSuffix) {
		t.Fatal("dry run wrote")
	}
	if len(res.Trust) != 1 || !strings.Contains(res.Trust[0], "/hooks") {
		t.Fatalf("codex install does not say the hooks need trusting: %v", res.Trust)
	}
}

func TestSymlinkedConfigIsEditedWhereItPoints(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	env := testEnv(t)
	real := filepath.Join(env.Home, "dotfiles", "settings.json")
	mustWrite(t, real, "{}\n", 0o600)
	link := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(env, opts("claude-code", User)); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if !strings.Contains(mustRead(t, real), "inject") {
		t.Fatal("the target was not edited")
	}
}

func TestTwoServersShareAFile(t *testing.T) {
	for _, client := range Clients() {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			a, b := opts(client, Project), opts(client, Project)
			b.Server = "other"
			if _, err := Install(env, a); err != nil {
				t.Fatal(err)
			}
			one := mustRead(t, mustPath(t, env, client))
			if _, err := Install(env, b); err != nil {
				t.Fatal(err)
			}
			both := mustRead(t, mustPath(t, env, client))
			if !strings.Contains(both, `"other"`) && !strings.Contains(both, "--server other") {
				t.Fatalf("second server missing:\n%s", both)
			}
			if _, err := Uninstall(env, b); err != nil {
				t.Fatal(err)
			}
			if got := mustRead(t, mustPath(t, env, client)); got != one {
				t.Fatalf("uninstalling one server:\n%s\nwant\n%s", got, one)
			}
			if _, err := Uninstall(env, a); err != nil {
				t.Fatal(err)
			}
			if exists(mustPath(t, env, client)) {
				t.Fatal("file left behind")
			}
		})
	}
}

func TestOpenCodeRefusesForeignPlugin(t *testing.T) {
	env := testEnv(t)
	path := mustPath(t, env, "opencode")
	mustWrite(t, path, "export const Mine = async () => ({})\n", 0o644)
	if _, err := Install(env, opts("opencode", Project)); err == nil || !strings.Contains(err.Error(), "not the interceptor shim") {
		t.Fatalf("err %v", err)
	}
}

func TestOpenCodeRestoresHandCopiedShim(t *testing.T) {
	env := testEnv(t)
	path := mustPath(t, env, "opencode")
	recipe := mustReadRecipe(t)
	mustWrite(t, path, recipe, 0o644)
	if _, err := Install(env, opts("opencode", Project)); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(env, opts("opencode", Project)); err != nil {
		t.Fatal(err)
	}
	if mustRead(t, path) != recipe || exists(path+BackupSuffix) {
		t.Fatal("the hand-copied shim was not put back")
	}
}

func TestCodexTrustHash(t *testing.T) {
	// Checked against Codex CLI 0.169.0: with this trusted_hash in
	// config.toml, a hooks.json SessionStart hook with this command ran; with
	// one digit changed, it was skipped.
	hook := gjson.Parse(`{"type":"command","command":"echo fired >> /tmp/cx/marker","timeout":10}`)
	got, ok := codexHookHash("SessionStart", nil, hook)
	if !ok || got != "sha256:e93255a13d1d2f8451f5b0941160bdc84b66e20b8714f50b25be57f9e07e67bd" {
		t.Fatalf("hash %s %v", got, ok)
	}
	if _, ok := codexHookHash("PreToolUse", nil, gjson.Parse(`{"type":"command","command":"x","weird":1}`)); ok {
		t.Fatal("a hook with unknown fields got a hash")
	}
}

// trustStates are what Trust reads of each hook in the client's config at
// scope, by event.
func trustStates(t *testing.T, env Env, client string, scope Scope) map[string]string {
	t.Helper()
	c, _ := hooks.FindClient(client)
	path, _ := ConfigPath(env, client, scope)
	found, err := FindHooks(path, []byte(mustRead(t, path)), c)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, h := range found {
		out[h.Event] = Trust(env, c, h, path).State
	}
	return out
}

// Trust reads Codex's records of the hooks in either spelling, not from a
// config.toml Codex would refuse, and not for a hook changed since.
func TestTrust(t *testing.T) {
	env := testEnv(t)
	codexHome := filepath.Join(env.Home, "codex-home")
	env.Getenv = func(k string) string { return map[string]string{"CODEX_HOME": codexHome}[k] }
	bin := filepath.Join(env.Home, "bin", "interceptor")
	mustWrite(t, bin, "#!/bin/sh\n", 0o755)
	o := opts("codex", User)
	o.Bin = bin
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	want := func(state string) {
		t.Helper()
		if got := trustStates(t, env, "codex", User); len(got) != 2 || got["PreToolUse"] != state || got["PostToolUse"] != state {
			t.Fatalf("trust %v, want both %s", got, state)
		}
	}
	want("untrusted")
	// Trust them the way Codex records it.
	doc := mustRead(t, res.Path)
	// Both spellings Codex accepts: a table per hook, and inline tables
	// under one [hooks.state] (which must then come first: a table header
	// may appear only once).
	var entries [2]string
	for i, ev := range []string{"PreToolUse", "PostToolUse"} {
		m := gjson.Get(doc, "hooks."+ev+".0.matcher").Str
		h, _ := codexHookHash(ev, &m, gjson.Get(doc, "hooks."+ev+".0.hooks.0"))
		entries[i] = jsonString(codexHookKey(res.Path, ev, 0, 0)) + "|" + h
	}
	pre, post := strings.Split(entries[0], "|"), strings.Split(entries[1], "|")
	config := "model = \"x\"\n\n[hooks.state]\n" + post[0] + " = { trusted_hash = \"" + post[1] + "\" }\n" +
		"\n[hooks.state." + pre[0] + "]\nenabled = true\ntrusted_hash = \"" + pre[1] + "\"\n"
	configPath := filepath.Join(codexHome, "config.toml")
	mustWrite(t, configPath, config, 0o600)
	want("trusted")
	mustWrite(t, configPath, strings.Replace(config, "enabled = true", "enabled = false", 1), 0o600)
	if got := trustStates(t, env, "codex", User)["PreToolUse"]; got != "disabled" {
		t.Fatalf("a disabled hook reads as %s", got)
	}
	// A config.toml Codex would refuse (here: [hooks.state] defined twice)
	// is not read as trust.
	mustWrite(t, configPath, config+"\n[hooks.state]\n", 0o600)
	want("unknown")
	mustWrite(t, configPath, config, 0o600)
	// A reinstall that changes the command invalidates the trust.
	o.Hook.Arg = "tok"
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	want("modified")
}

func TestShellQuoteRoundTrip(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX quoting")
	}
	words := []string{"/a b/c", "it's", `"q"`, "$HOME", "`x`", "a\\b", "", "plain-1.2_x"}
	got, ok := shellSplit(shellJoin(words))
	if !ok || strings.Join(got, "\x00") != strings.Join(words, "\x00") {
		t.Fatalf("%q -> %q -> %q", words, shellJoin(words), got)
	}
	if shellJoin([]string{"/usr/bin/interceptor", "inject"}) != "/usr/bin/interceptor inject" {
		t.Fatal("plain words got quoted")
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
	b := []byte("1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n")
	want := "diff a/f b/f\n--- a/f\n+++ b/f\n@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+11\n"
	if got := unifiedDiff("f", a, b); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := unifiedDiff("f", nil, []byte("x\n")); got != "diff /dev/null b/f\n--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n" {
		t.Fatalf("new file diff:\n%s", got)
	}
	_ = bytes.Equal
}

func mustPath(t *testing.T, env Env, client string) string {
	t.Helper()
	p, err := ConfigPath(env, client, Project)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mustWrite and mustRead set up and read files, failing the test.
var mustWrite, mustRead = testfiles.Write, testfiles.Read

func mustReadRecipe(t *testing.T) string {
	t.Helper()
	return mustRead(t, filepath.Join("..", "..", "recipes", "opencode", "interceptor.ts"))
}

// A binary not named interceptor… is refused before anything is written,
// by install and by install --proxy: uninstall and doctor know
// interceptor's entries by that name, so they could never take these out.
func TestInstallRefusesABinaryItCouldNotKnowAgain(t *testing.T) {
	for _, bin := range []string{"/usr/bin/true", "/opt/ic", "relative/interceptor"} {
		env := testEnv(t)
		o := opts("claude-code", User)
		o.Bin = bin
		if _, err := Install(env, o); err == nil || !strings.Contains(err.Error(), bin) {
			t.Errorf("Install with --bin %s: %v, want an error naming it", bin, err)
		}
		testfiles.Write(t, filepath.Join(env.Home, ".claude.json"), `{"mcpServers":{"wf":{"command":"node","args":["s.js"]}}}`, 0o600)
		if _, err := InstallProxy(env, o); err == nil || !strings.Contains(err.Error(), bin) {
			t.Errorf("InstallProxy with --bin %s: %v, want an error naming it", bin, err)
		}
		if b, _ := os.ReadFile(filepath.Join(env.Home, ".claude.json")); string(b) != `{"mcpServers":{"wf":{"command":"node","args":["s.js"]}}}` {
			t.Errorf("--bin %s: .claude.json changed: %s", bin, b)
		}
		if _, err := os.Stat(filepath.Join(env.Home, ".claude", "settings.json")); err == nil {
			t.Errorf("--bin %s: settings.json written", bin)
		}
	}
	o := opts("claude-code", User)
	o.Bin = "/opt/bin/interceptor-dev"
	if _, err := Install(testEnv(t), o); err != nil {
		t.Errorf("--bin %s: %v", o.Bin, err)
	}
}

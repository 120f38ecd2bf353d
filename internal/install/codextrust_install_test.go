package install

import (
	"fmt"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallCodexTrust(t *testing.T) {
	env := testEnv(t)
	config := filepath.Join(env.Home, ".codex", "config.toml")
	mine := "model = \"o3\"\n\n[hooks.state.\"/elsewhere/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n"
	mustWrite(t, config, mine, 0o600)
	o := opts("codex", User)
	o.Trust = true
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trust) != 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "recorded the hooks as trusted in "+config) {
		t.Errorf("result %+v", res)
	}
	after := mustRead(t, config)
	if !strings.HasPrefix(after, mine) {
		t.Fatalf("config.toml lost its own content:\n%s", after)
	}
	trusted := func() int {
		n := 0
		for _, state := range trustStates(t, env, "codex", User) {
			if state == "trusted" {
				n++
			}
		}
		return n
	}
	if n := trusted(); n != 2 {
		t.Fatalf("Trust reads %d trusted hooks, want 2: %v", n, trustStates(t, env, "codex", User))
	}
	// Again: nothing changes.
	if res, err := Install(env, o); err != nil || res.Changed || mustRead(t, config) != after {
		t.Fatalf("second install: %+v %v", res, err)
	}
	// A changed hook (another binary) gets its record's hash replaced, in place.
	o.Bin = "/opt/interceptor"
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	if n := trusted(); n != 2 {
		t.Fatalf("after the change Trust reads %d trusted hooks, want 2", n)
	}
	if got := mustRead(t, config); strings.Count(got, "[hooks.state.") != 3 {
		t.Fatalf("records were added, not replaced:\n%s", got)
	}
	// Without --trust, nothing is recorded.
	env2 := testEnv(t)
	if _, err := Install(env2, opts("codex", User)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(env2.Home, ".codex", "config.toml")); err == nil {
		t.Fatal("install without --trust wrote config.toml")
	}
	// --trust is Codex's only.
	o3 := opts("claude-code", User)
	o3.Trust = true
	if _, err := Install(testEnv(t), o3); err == nil || !strings.Contains(err.Error(), "--trust") {
		t.Errorf("claude-code --trust: %v", err)
	}
}

// setTrustedHash edits the one value (or adds the one entry) and keeps every
// other byte, whichever way the record is spelled.
func TestSetTrustedHash(t *testing.T) {
	const key = "/p/.codex/hooks.json:pre_tool_use:0:0"
	const h = "sha256:11"
	for _, c := range []struct{ name, doc, want string }{
		{"table",
			"model = \"o3\" # mine\n\n[hooks.state.\"" + key + "\"]\nenabled = true\ntrusted_hash = \"sha256:00\" # kept\n\n[other]\nx = 1\n",
			"model = \"o3\" # mine\n\n[hooks.state.\"" + key + "\"]\nenabled = true\ntrusted_hash = \"sha256:11\" # kept\n\n[other]\nx = 1\n"},
		{"inline table, literal string",
			"[hooks.state]\n'" + key + "' = {  trusted_hash = 'sha256:00' ,enabled=true}\n",
			"[hooks.state]\n'" + key + "' = {  trusted_hash = \"sha256:11\" ,enabled=true}\n"},
		{"dotted keys under [hooks]",
			"[hooks]\nstate . \"" + key + "\".trusted_hash=\"sha256:00\"\n",
			"[hooks]\nstate . \"" + key + "\".trusted_hash=\"sha256:11\"\n"},
		{"nested inline tables",
			"hooks = { state = { \"" + key + "\" = { trusted_hash = \"sha256:00\" } } }\n",
			"hooks = { state = { \"" + key + "\" = { trusted_hash = \"sha256:11\" } } }\n"},
		{"same hash",
			"[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:11\"\n",
			"[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:11\"\n"},
		{"table without a hash",
			"[hooks.state.\"" + key + "\"] # mine\n  enabled = false\n",
			"[hooks.state.\"" + key + "\"] # mine\ntrusted_hash = \"sha256:11\"\n  enabled = false\n"},
		{"empty table at the end, no newline",
			"[hooks.state.\"" + key + "\"]",
			"[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:11\"\n"},
		{"CRLF",
			"a = 1\r\n[hooks.state.\"" + key + "\"]\r\nenabled = true\r\n",
			"a = 1\r\n[hooks.state.\"" + key + "\"]\r\ntrusted_hash = \"sha256:11\"\r\nenabled = true\r\n"},
		{"inline table without a hash",
			"[hooks.state]\n\"" + key + "\" = { enabled = false }\n",
			"[hooks.state]\n\"" + key + "\" = { trusted_hash = \"sha256:11\", enabled = false }\n"},
		{"empty inline table",
			"[hooks.state]\n\"" + key + "\" = {}\n",
			"[hooks.state]\n\"" + key + "\" = {trusted_hash = \"sha256:11\"}\n"},
		{"dotted keys without a hash",
			"[hooks]\n  state.\"" + key + "\".enabled = false\n",
			"[hooks]\n  state.\"" + key + "\".trusted_hash = \"sha256:11\"\n  state.\"" + key + "\".enabled = false\n"},
		{"no record",
			"model = \"o3\"\n[hooks.state]\n\"/q:stop:0:0\" = { trusted_hash = \"x\" }",
			"model = \"o3\"\n[hooks.state]\n\"/q:stop:0:0\" = { trusted_hash = \"x\" }\n\n[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:11\"\n"},
		{"no file", "", "[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:11\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := parseCodexState(&hooks.CodexClient, "config.toml", []byte(c.doc)); err != nil {
				t.Fatalf("the test's document: %v", err)
			}
			got := string(setTrustedHash([]byte(c.doc), key, h))
			if got != c.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, c.want)
			}
			st, err := parseCodexState(&hooks.CodexClient, "config.toml", []byte(got))
			if err != nil || st.Hooks.State[key].TrustedHash != h {
				t.Fatalf("read back: %+v %v", st.Hooks.State, err)
			}
		})
	}
}

// Keys are quoted as TOML needs, whatever the hooks.json path holds.
func TestSetTrustedHashQuotesKeys(t *testing.T) {
	for _, key := range []string{
		`/home/a.b/.codex/hooks.json:pre_tool_use:0:0`,
		`/tmp/say "hi"\now/hooks.json:post_tool_use:1:2`,
		"/tmp/tab\tnew\nline\x7fdel\x01/hooks.json:pre_tool_use:0:0",
		"/tmp/ünï'cödé/hooks.json:pre_tool_use:0:0",
		"bare_key-1",
	} {
		doc := setTrustedHash([]byte("[hooks.state.x]\ntrusted_hash = \"a\"\n"), key, "sha256:22")
		st, err := parseCodexState(&hooks.CodexClient, "config.toml", doc)
		if err != nil {
			t.Fatalf("%q:\n%s\n%v", key, doc, err)
		}
		if st.Hooks.State[key].TrustedHash != "sha256:22" || st.Hooks.State["x"].TrustedHash != "a" {
			t.Fatalf("%q: read back %+v from\n%s", key, st.Hooks.State, doc)
		}
		// Once there, a second run finds it and changes nothing.
		if again := setTrustedHash(doc, key, "sha256:22"); string(again) != string(doc) {
			t.Fatalf("%q: second run changed\n%s\nto\n%s", key, doc, again)
		}
	}
	if got := tomlKey("bare_key-1"); got != "bare_key-1" {
		t.Errorf("tomlKey(bare) = %s", got)
	}
}

// install --trust edits a record Codex holds as an inline table in place.
func TestInstallCodexTrustInlineRecords(t *testing.T) {
	env := testEnv(t)
	config := filepath.Join(env.Home, ".codex", "config.toml")
	o := opts("codex", User)
	o.Trust = true
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	st, err := readCodexState(&hooks.CodexClient, config)
	if err != nil || len(st.Hooks.State) != 2 {
		t.Fatalf("records %+v %v", st.Hooks.State, err)
	}
	// The same records as inline tables with stale hashes, among comments.
	var doc, want strings.Builder
	doc.WriteString("# my codex config\nmodel = \"o3\"\n\n[hooks.state] # trust\n")
	want.WriteString(doc.String())
	for key, rec := range st.Hooks.State {
		line := "%s = { enabled = true, trusted_hash = %s } # reviewed\n"
		fmt.Fprintf(&doc, line, tomlString(key), `'sha256:stale'`)
		fmt.Fprintf(&want, line, tomlString(key), tomlString(rec.TrustedHash))
	}
	mustWrite(t, config, doc.String(), 0o600)
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, config); got != want.String() || !res.Changed {
		t.Fatalf("changed %v, got:\n%s\nwant:\n%s", res.Changed, got, want.String())
	}
}

// A config.toml that is not TOML is refused in one line naming it, and left
// as it was.
func TestInstallCodexTrustInvalidTOML(t *testing.T) {
	for bad, why := range map[string]string{
		"model = \"o3\"\n[hooks.state]\n[hooks.state]\n": ":3:2 is not valid TOML, which Codex refuses too: table state already exists",
		"model = o3\n": ":1:9 is not valid TOML",
		"[hooks.state.\"k.1\"]\ntrusted_hash = 1\n": `:2:16: hooks.state."k.1".trusted_hash has a type Codex refuses there`,
	} {
		env := testEnv(t)
		config := filepath.Join(env.Home, ".codex", "config.toml")
		mustWrite(t, config, bad, 0o600)
		o := opts("codex", User)
		o.Trust = true
		_, err := Install(env, o)
		if err == nil {
			t.Fatalf("%q accepted", bad)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "--trust: "+config+why) || strings.Contains(msg, "\n") {
			t.Errorf("%q: %s", bad, msg)
		}
		if mustRead(t, config) != bad {
			t.Errorf("%q: config.toml changed", bad)
		}
	}
}

// A hooks.state that TOML closed (an inline table) cannot take a new
// record: refused, nothing written.
func TestInstallCodexTrustClosedState(t *testing.T) {
	env := testEnv(t)
	config := filepath.Join(env.Home, ".codex", "config.toml")
	closed := "[hooks]\nstate = { \"/elsewhere:pre_tool_use:0:0\" = { trusted_hash = \"x\" } }\n"
	mustWrite(t, config, closed, 0o600)
	o := opts("codex", User)
	o.Trust = true
	_, err := Install(env, o)
	if err == nil || !strings.Contains(err.Error(), "form install cannot add to") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
	if mustRead(t, config) != closed {
		t.Fatal("config.toml changed")
	}
}

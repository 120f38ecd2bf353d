package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/tidwall/gjson"
)

// The example configs are what users copy: each one is run here, command by
// command, against the client's real payloads, and must move a token from a
// result into the next call.

type exampleHook struct {
	event, matcher, command string
}

// exampleHooks reads Claude Code / Codex / Gemini style groups
// hooks.<Event>[{matcher, hooks:[{command}]}] and Cursor's hooks.<event>[{command}].
func exampleHooks(t *testing.T, file string) []exampleHook {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	if !gjson.ValidBytes(data) {
		t.Fatalf("%s is not valid JSON", file)
	}
	var out []exampleHook
	gjson.GetBytes(data, "hooks").ForEach(func(event, groups gjson.Result) bool {
		groups.ForEach(func(_, g gjson.Result) bool {
			if cmd := g.Get("command"); cmd.Exists() {
				out = append(out, exampleHook{event.Str, "", cmd.Str})
				return true
			}
			g.Get("hooks").ForEach(func(_, h gjson.Result) bool {
				if h.Get("type").Str != "command" {
					t.Errorf("%s: %s hook type %q", file, event.Str, h.Get("type").Str)
				}
				out = append(out, exampleHook{event.Str, g.Get("matcher").Str, h.Get("command").Str})
				return true
			})
			return true
		})
		return true
	})
	if len(out) == 0 {
		t.Fatalf("%s has no hooks", file)
	}
	return out
}

func (h exampleHook) run(t *testing.T, stateDir string, payload []byte) (string, string) {
	t.Helper()
	args := strings.Fields(h.command)
	if !filepath.IsAbs(args[0]) || filepath.Base(args[0]) != "interceptor" {
		t.Fatalf("%s: command %q should start with the binary's absolute path", h.event, h.command)
	}
	if h.matcher != "" {
		tool := gjson.GetBytes(payload, "tool_name").Str
		if !regexp.MustCompile(h.matcher).MatchString(tool) {
			t.Fatalf("%s: matcher %q does not match %q", h.event, h.matcher, tool)
		}
	}
	var out, errb bytes.Buffer
	code := run(append(args[1:], "--state-dir", stateDir), &IO{In: bytes.NewReader(payload), Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("%s: exit %d", h.event, code)
	}
	return out.String(), errb.String()
}

func find(t *testing.T, hooks []exampleHook, event string) exampleHook {
	t.Helper()
	for _, h := range hooks {
		if h.event == event {
			return h
		}
	}
	t.Fatalf("no %s hook", event)
	return exampleHook{}
}

func readTestdata(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// exampleToken has the shape of the reference server's tokens.
const exampleToken = "eyJzaWQiOiJleGFtcGxlIiwic2VxIjoxfQ.5d41402abc4b2a76b9719d911017c592"

func TestExamples(t *testing.T) {
	cases := []struct {
		file, pre, post, preFixture, postFixture, dir, reply string
	}{
		{"claude-code/settings.json", "PreToolUse", "PostToolUse", "claude-code.PreToolUse.structured.json", "claude-code.PostToolUse.structured.json", "fixtures", "hookSpecificOutput.updatedInput.session_token"},
		{"codex/hooks.json", "PreToolUse", "PostToolUse", "codex.PreToolUse.text.json", "codex.PostToolUse.text.json", "fixtures", "hookSpecificOutput.updatedInput.session_token"},
		{"cursor/hooks.json", "preToolUse", "postToolUse", "cursor.preToolUse.json", "cursor.postToolUse.json", "documented", "updated_input.session_token"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			hooks := exampleHooks(t, c.file)
			dir := filepath.Join(t.TempDir(), "state")
			// The recorded results carry the short tokens of the server they
			// were recorded against ("tok-1"); the examples run with the
			// default token rules, so give them a real token's shape.
			post := readTestdata(t, c.dir, c.postFixture)
			post = regexp.MustCompile(`tok-(cursor-)?1`).ReplaceAll(post, []byte(exampleToken))
			if _, errOut := find(t, hooks, c.post).run(t, dir, post); strings.Contains(errOut, "error") {
				t.Fatalf("capture: %s", errOut)
			}
			out, errOut := find(t, hooks, c.pre).run(t, dir, readTestdata(t, c.dir, c.preFixture))
			if errOut != "" {
				t.Fatalf("inject stderr: %s", errOut)
			}
			if got := gjson.Get(out, c.reply).Str; got != exampleToken {
				t.Fatalf("inject reply %q lacks the captured token at %s", out, c.reply)
			}
		})
	}
	t.Run("gemini/settings.json", func(t *testing.T) {
		hooks := exampleHooks(t, "gemini/settings.json")
		dir := filepath.Join(t.TempDir(), "state")
		// The observed AfterTool text holds no token; put one in the text the
		// way a server that serves Gemini must.
		post := bytes.Replace(readTestdata(t, "fixtures", "gemini.AfterTool.text.json"),
			[]byte(`(text block; token is only in _meta)\n`), []byte(`\nsession_token: `+exampleToken+`\n`), 1)
		find(t, hooks, "AfterTool").run(t, dir, post)
		out, _ := find(t, hooks, "BeforeTool").run(t, dir, readTestdata(t, "fixtures", "gemini.BeforeTool.text.json"))
		if got := gjson.Get(out, "hookSpecificOutput.tool_input.session_token").Str; got != exampleToken {
			t.Fatalf("inject reply %q", out)
		}
	})
	t.Run("opencode plugin is the recipe's shim, configured", func(t *testing.T) {
		recipe, err := os.ReadFile(filepath.Join("..", "..", "recipes", "opencode", "interceptor.ts"))
		if err != nil {
			t.Fatal(err)
		}
		example, err := os.ReadFile(filepath.Join("..", "..", "examples", "opencode", ".opencode", "plugin", "interceptor.ts"))
		if err != nil {
			t.Fatal(err)
		}
		// Only the three constant lines differ.
		a, b := strings.Split(string(recipe), "\n"), strings.Split(string(example), "\n")
		if len(a) != len(b) {
			t.Fatalf("the example has %d lines, the recipe %d", len(b), len(a))
		}
		var diff []string
		for i := range a {
			if a[i] != b[i] {
				diff = append(diff, b[i])
			}
		}
		want := []string{`const BIN: string = "/usr/local/bin/interceptor"`, `const ARGS: string[] = ["--server", "wf"]`, `const CAPTURE_ARGS: string[] = ["--redact"]`}
		if strings.Join(diff, "\n") != strings.Join(want, "\n") {
			t.Fatalf("the example differs from the recipe in:\n%s\nwant only:\n%s", strings.Join(diff, "\n"), strings.Join(want, "\n"))
		}
	})
}

// exampleInstalls are the install commands each example is the output of,
// with the binary at exampleBin.
const exampleBin = "/usr/local/bin/interceptor"

var exampleInstalls = []struct {
	file   string
	client string
	redact bool
}{
	{"claude-code/settings.json", "claude-code", true},
	{"codex/hooks.json", "codex", false},
	{"gemini/settings.json", "gemini", false},
	{"cursor/hooks.json", "cursor", true},
	{"opencode/.opencode/plugin/interceptor.ts", "opencode", true},
	{"copilot/interceptor.json", "copilot", true},
	{"droid/settings.json", "droid", false},
	{"cline/PreToolUse", "cline", false},
	{"kilo/.kilo/plugin/interceptor.ts", "kilo", true},
}

// TestExamplesAreInstallOutput: each example file is byte for byte what
// `interceptor install CLIENT --server wf --scope project [--redact]
// --bin /usr/local/bin/interceptor` writes into an empty project (the JSON
// examples sit directly in examples/CLIENT/; in a project they go into
// .claude/, .codex/, .gemini/, .cursor/).
// UPDATE_EXAMPLES=1 rewrites them.
func TestExamplesAreInstallOutput(t *testing.T) {
	for _, ex := range exampleInstalls {
		t.Run(ex.file, func(t *testing.T) {
			proj := t.TempDir()
			env := install.Env{Home: t.TempDir(), Project: proj}
			res, err := install.Install(env, install.Options{Client: ex.client, Scope: install.Project, Server: "wf",
				Bin: exampleBin, Hook: install.HookOptions{Options: carry.Options{Redact: ex.redact}}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(res.Path) != filepath.Base(ex.file) {
				t.Fatalf("install writes %s, the example is %s", res.Path, ex.file)
			}
			path := filepath.Join("..", "..", "examples", filepath.FromSlash(ex.file))
			if os.Getenv("UPDATE_EXAMPLES") == "1" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from what install writes (UPDATE_EXAMPLES=1 rewrites it):\n%s", path, got)
			}
		})
	}
}

package install

import (
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// TestRemoveTrustedHashUndoesSet: what install --trust adds to a
// config.toml, in each form a record can take, uninstall takes out to the
// byte; a record whose hash is another's (the user trusted another hook
// there) stays.
func TestRemoveTrustedHashUndoesSet(t *testing.T) {
	const key = "/p/.codex/hooks.json:pre_tool_use:0:0"
	const h = "sha256:11"
	for _, c := range []struct{ name, doc string }{
		{"no file", ""},
		{"no record", "model = \"o3\"\n[hooks.state]\n\"/q:stop:0:0\" = { trusted_hash = \"x\" }\n"},
		{"no record, no final newline", "model = \"o3\"\n[mcp_servers.wf]\ncommand = \"node\""},
		{"table without a hash", "[hooks.state.\"" + key + "\"] # mine\n  enabled = false\n"},
		{"table without a hash, more after", "[hooks.state.\"" + key + "\"]\nenabled = false\n\n[other]\nx = 1\n"},
		{"CRLF", "a = 1\r\n[hooks.state.\"" + key + "\"]\r\nenabled = true\r\n"},
		{"inline table without a hash", "[hooks.state]\n\"" + key + "\" = { enabled = false }\n"},
		{"empty inline table", "[hooks.state]\n\"" + key + "\" = {}\n"},
		{"dotted keys without a hash", "[hooks]\n  state.\"" + key + "\".enabled = false\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := setTrustedHash([]byte(c.doc), key, h)
			got := string(removeTrustedHash(set, key, h))
			if c.name == "no record, no final newline" {
				got = string(endAsBefore([]byte(got), []byte(c.doc)))
			}
			if got != c.doc {
				t.Fatalf("after set:\n%s\nafter remove:\n%q\nwant:\n%q", set, got, c.doc)
			}
			if _, err := parseCodexState(&hooks.CodexClient, "config.toml", []byte(got)); err != nil {
				t.Fatal(err)
			}
		})
	}
	other := "[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:22\"\n"
	if got := string(removeTrustedHash([]byte(other), key, h)); got != other {
		t.Errorf("a record of another hash was changed:\n%s", got)
	}
}

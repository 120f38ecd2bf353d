package install

import (
	"encoding/json"
	"strings"
	"testing"
)

// hostileMembers are members of a settings file that a client accepts but
// a re-encoding editor would change: numbers no float64 holds, escapes
// spelled out, line and paragraph separators raw and escaped, a lone
// surrogate, a key that is empty, one that is not ASCII, a string that
// looks like hooks and comments, nesting 400 deep, and a 1 MiB string.
var hostileMembers = []string{
	`"big": 1e400`,
	`"negzero": -0.0E+0`,
	`"precise": 0.10000000000000000000000000001`,
	`"huge": 123456789012345678901234567890`,
	`"escapes": "\u0041\/\ud83d\ude00\t\"\\"`,
	"\"separators\": \"a\u2028b\u2029c \\u2028\"",
	`"lone": "\udc80"`,
	`"": "empty key"`,
	`"schlüssel ✓": {"ключ": [true, false, null]}`,
	`"looks": "\"hooks\": {\"PreToolUse\": [ // /* */ ] }"`,
	`"deep": ` + strings.Repeat("[", 400) + strings.Repeat("]", 400),
	`"long": "` + strings.Repeat("x", 1<<20) + `"`,
}

// hostileDocs lays the members out in the ways a person (or a tool) may
// have written the file: one line, CRLF with tabs, and spaced out with
// the user's own hooks between the hostile members.
func hostileDocs(client string) map[string]string {
	own := map[string]string{
		"claude-code": `"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo \"stop\" \u2028 // not a comment"}]}]}`,
		"codex":       `"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "start.sh \"\\u0000\""}]}]}`,
		"gemini":      `"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo /* x */"}]}]}`,
		"cursor":      `"version": 1, "hooks": {"stop": [{"command": "./audit.sh \"a\tb\""}]}`,
		"copilot":     `"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "echo \"\\n\""}]}`,
		"droid":       `"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "audit.sh é"}]}]}`,
	}[client]
	half := len(hostileMembers) / 2
	spaced := append(append(append([]string{}, hostileMembers[:half]...), own), hostileMembers[half:]...)
	return map[string]string{
		"one line": "{" + strings.Join(append([]string{own}, hostileMembers...), ",") + "}",
		"crlf":     "{\r\n\t" + strings.Join(append(append([]string{}, hostileMembers...), own), ",\r\n\t") + "\r\n}\r\n",
		"spaced":   "{\n    " + strings.Join(spaced, ",\n\n    ") + "\n}",
		// The hooks key itself spelled with an escape: JSON.parse reads
		// it as hooks, so install must edit that member, not add another.
		"escaped key": "{" + strings.Replace(own, `"hooks"`, `"\u0068ooks"`, 1) + `, "after": 1}`,
	}
}

// TestSurgicalEditsOnHostileFiles: on settings files full of what a
// re-encoding editor would change, install only inserts (every byte of the
// file is kept, in order), the result is valid JSON holding the hooks where
// the client reads them, and uninstall gives back the file byte for byte
// (a held promise of issue 22's review).
func TestSurgicalEditsOnHostileFiles(t *testing.T) {
	for _, client := range []string{"claude-code", "codex", "gemini", "cursor", "copilot", "droid"} {
		for layout, pre := range hostileDocs(client) {
			t.Run(client+"/"+layout, func(t *testing.T) {
				if !json.Valid([]byte(pre)) {
					t.Fatal("the hostile document is not valid JSON")
				}
				env := testEnv(t)
				o := opts(client, User)
				o.Hook.Redact = true // as checkInstalled expects
				path, err := ConfigPath(env, client, User)
				if err != nil {
					t.Fatal(err)
				}
				mustWrite(t, path, pre, 0o600)
				res, err := Install(env, o)
				if err != nil || !res.Changed {
					t.Fatalf("install: %+v %v", res, err)
				}
				after := mustRead(t, path)
				if !json.Valid([]byte(after)) {
					t.Fatalf("install wrote invalid JSON:\n%.2000s", after)
				}
				checkInstalled(t, client, after)
				if i, ok := onlyInsertions(pre, after); !ok {
					t.Fatalf("install changed or dropped a byte of the file (the first at byte %d of it):\n%.300q\nbecame\n%.300q", i, pre[max(0, i-100):min(len(pre), i+100)], after[max(0, i-100):min(len(after), i+200)])
				}
				res, err = Uninstall(env, o)
				if err != nil || !res.Changed {
					t.Fatalf("uninstall: %+v %v", res, err)
				}
				if got := mustRead(t, path); got != pre {
					i := 0
					for i < len(got) && i < len(pre) && got[i] == pre[i] {
						i++
					}
					t.Fatalf("uninstall did not give the file back byte for byte; first difference at byte %d:\n%.200q\nwant\n%.200q", i, got[i:], pre[i:])
				}
			})
		}
	}
}

// onlyInsertions reports whether after is before with bytes inserted: every
// byte of before is in after, in order. When not, it returns how far into
// before the bytes were kept.
func onlyInsertions(before, after string) (int, bool) {
	i := 0
	for j := 0; i < len(before) && j < len(after); j++ {
		if before[i] == after[j] {
			i++
		}
	}
	return i, i == len(before)
}

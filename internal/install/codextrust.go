package install

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

// Codex runs a hooks.json hook only when the user config.toml holds, under
// [hooks.state."<hooks.json path>:<event>:<group>:<handler>"], a
// trusted_hash equal to the hash of the hook as it is now (it writes that
// when the user trusts the hooks with /hooks). The hash, as Codex computes
// it (codex-rs hooks/src/engine/discovery.rs and config/src/fingerprint.rs):
// sha256 over compact JSON with sorted keys of
//
//	{"event_name": "<snake_case event>", "matcher": …, "hooks": [<handler>]}
//
// where the handler is normalized: type, command, timeout (default 600, at
// least 1), async (false by default), statusMessage when set; unset fields
// are left out. Checked against Codex CLI 0.169.0: a hook with this hash
// runs, one with another hash is skipped.
//
// UserPromptSubmit takes no matcher: Codex 0.169.0 runs its hooks whatever
// the group's matcher says, and hashes them with the "matcher" key left
// out, present or not in hooks.json (seen: only that hash ran the hook;
// "matcher" as null, "", "*" or the group's own did not). SessionEnd and
// Stop have not been checked, so their hash stays unknown.

var codexEventLabels = map[string]string{
	"PreToolUse":        "pre_tool_use",
	"PermissionRequest": "permission_request",
	"PostToolUse":       "post_tool_use",
	"PreCompact":        "pre_compact",
	"PostCompact":       "post_compact",
	"SessionStart":      "session_start",
	"SessionEnd":        "session_end",
	"UserPromptSubmit":  "user_prompt_submit",
	"SubagentStart":     "subagent_start",
	"SubagentStop":      "subagent_stop",
	"Stop":              "stop",
}

// codexHookHash is Codex's trust hash of one command hook; ok is false when
// the hook has fields whose normalization is not known here.
func codexHookHash(event string, matcher *string, hook gjson.Result) (string, bool) {
	label, ok := codexEventLabels[event]
	if !ok || event == "SessionEnd" || event == "Stop" {
		return "", false
	}
	if event == "UserPromptSubmit" {
		matcher = nil
	}
	fields := map[string]string{"type": jsonString("command"), "async": "false"}
	known := true
	hook.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			known = known && v.Str == "command"
		case "command":
			fields["command"] = jsonString(v.Str)
		case "timeout":
			n, err := strconv.ParseUint(v.Raw, 10, 64)
			if err != nil {
				known = false
			}
			fields["timeout"] = strconv.FormatUint(max(n, 1), 10)
		case "async":
			if v.Type != gjson.True && v.Type != gjson.False {
				known = false
			}
			fields["async"] = v.Raw
		case "statusMessage":
			if v.Type != gjson.Null {
				fields["statusMessage"] = jsonString(v.Str)
			}
		case "commandWindows":
			if isWindows() {
				known = false
			}
		default:
			known = false
		}
		return known
	})
	if !known || fields["command"] == "" {
		return "", false
	}
	if fields["timeout"] == "" {
		fields["timeout"] = "600"
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var h strings.Builder
	h.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			h.WriteByte(',')
		}
		h.WriteString(jsonString(k) + ":" + fields[k])
	}
	h.WriteByte('}')
	id := `{"event_name":` + jsonString(label) + `,"hooks":[` + h.String() + `]`
	if matcher != nil {
		id += `,"matcher":` + jsonString(*matcher)
	}
	id += "}"
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:]), true
}

// codexHookKey is the [hooks.state] key of a hooks.json handler.
func codexHookKey(hooksJSON, event string, group, index int) string {
	return hooksJSON + ":" + codexEventLabels[event] + ":" + strconv.Itoa(group) + ":" + strconv.Itoa(index)
}

// codexConfig is the part of Codex's config.toml doctor reads: the trust
// records of hooks ([hooks.state."<key>"]) and of projects
// ([projects."<path>"]). Other keys are ignored.
type codexConfig struct {
	Hooks struct {
		State map[string]codexHookState `toml:"state"`
	} `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
}

type codexHookState struct {
	TrustedHash string `toml:"trusted_hash"`
	Enabled     *bool  `toml:"enabled"` // unset: enabled
}

func (h codexHookState) disabled() bool { return h.Enabled != nil && !*h.Enabled }

// readCodexState reads c's config.toml; a file that is not valid TOML
// (which c refuses too) is an error naming it.
func readCodexState(c *hooks.Client, path string) (codexConfig, error) {
	data, err := ReadConfig(path)
	if err != nil {
		return codexConfig{}, err
	}
	return parseCodexState(c, path, data)
}

// codexProjectTrusted reports whether Codex trusts dir or a dir above it.
func (st codexConfig) projectTrusted(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if st.Projects[d].TrustLevel == "trusted" {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// HookTrust is what a client that runs new or changed hooks only once they
// are trusted (hooks.Client.TrustStep) has recorded of one hook.
type HookTrust struct {
	// State is trusted, untrusted, modified (changed since it was
	// trusted), disabled, or unknown: the record cannot be read (Err), or
	// the hook has fields whose trust hash is not modelled here.
	State string
	Err   error
	// Record is the file of trust records (hooks.Client.TrustRecord).
	// ProjectTrusted: it trusts env.Project or a dir above it, which a
	// client with ProjectTrust needs before it loads a project's hooks.
	Record         string
	ProjectTrusted bool
}

// Trust reads the client's trust record of hook h, found in the file at
// path.
func Trust(env Env, c *hooks.Client, h Hook, path string) HookTrust {
	t := HookTrust{Record: env.Resolve(c.TrustRecord)}
	st, err := readCodexState(c, t.Record)
	if err != nil && !os.IsNotExist(err) {
		t.State, t.Err = "unknown", err
		return t
	}
	t.ProjectTrusted = st.projectTrusted(env.Project)
	f := h.found
	want, ok := codexHookHash(f.event, f.matcher, f.hook)
	if !ok {
		t.State = "unknown"
		return t
	}
	var rec codexHookState
	found := false
	for _, p := range candidatePaths(path) {
		if r, ok := st.Hooks.State[codexHookKey(p, f.event, f.group, f.index)]; ok {
			rec, found = r, true
			break
		}
	}
	switch {
	case found && rec.disabled():
		t.State = "disabled"
	case found && rec.TrustedHash == want:
		t.State = "trusted"
	case found && rec.TrustedHash != "":
		t.State = "modified"
	default:
		t.State = "untrusted"
	}
	return t
}

// candidatePaths are the spellings Codex may key a file by.
func candidatePaths(path string) []string {
	out := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		out = append(out, real)
	}
	return out
}

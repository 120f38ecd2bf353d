package install

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

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
	if !ok || event == "SessionEnd" || event == "UserPromptSubmit" || event == "Stop" {
		return "", false
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

// codexState is what Codex's config.toml records about hooks and projects.
type codexState struct {
	hooks    map[string]codexHookState
	projects map[string]string // project path -> trust_level
}

type codexHookState struct {
	trustedHash string
	disabled    bool
}

// readCodexState reads the parts of config.toml doctor needs: the
// [hooks.state."KEY"] and [projects."PATH"] tables (also as inline tables
// under [hooks.state] / [projects]). It is not a TOML parser; what it does
// not recognize it skips.
func readCodexState(path string) (codexState, error) {
	st := codexState{hooks: map[string]codexHookState{}, projects: map[string]string{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	var table []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && !strings.HasPrefix(line, "[[") {
			end := strings.LastIndex(line, "]")
			if end < 0 {
				table = nil
				continue
			}
			table = splitDottedKey(line[1:end])
			continue
		}
		if strings.HasPrefix(line, "[[") {
			table = nil
			continue
		}
		eq := keyValueSplit(line)
		if eq < 0 {
			continue
		}
		key := splitDottedKey(line[:eq])
		val := strings.TrimSpace(line[eq+1:])
		full := append(append([]string{}, table...), key...)
		switch {
		case len(full) == 4 && full[0] == "hooks" && full[1] == "state":
			st.setHook(full[2], full[3], val)
		case len(full) == 3 && full[0] == "hooks" && full[1] == "state" && strings.HasPrefix(val, "{"):
			for _, kv := range inlineTable(val) {
				st.setHook(full[2], kv[0], kv[1])
			}
		case len(full) == 3 && full[0] == "projects" && full[2] == "trust_level":
			st.projects[full[1]] = tomlString(val)
		case len(full) == 2 && full[0] == "projects" && strings.HasPrefix(val, "{"):
			for _, kv := range inlineTable(val) {
				if kv[0] == "trust_level" {
					st.projects[full[1]] = tomlString(kv[1])
				}
			}
		}
	}
	return st, nil
}

func (st codexState) setHook(key, field, val string) {
	h := st.hooks[key]
	switch field {
	case "trusted_hash":
		h.trustedHash = tomlString(val)
	case "enabled":
		h.disabled = strings.HasPrefix(val, "false")
	default:
		return
	}
	st.hooks[key] = h
}

// inlineKV is compiled on first use, not at init: every hook process links
// this package and must not pay for a regexp it never uses.
var inlineKV = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z0-9_-]+)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*'|true|false)`)
})

func inlineTable(val string) [][2]string {
	var out [][2]string
	for _, m := range inlineKV().FindAllStringSubmatch(val, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

// keyValueSplit finds the '=' of a key = value line, outside quotes.
func keyValueSplit(line string) int {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(line) && line[i] != '\''; i++ {
			}
		case '=':
			return i
		}
	}
	return -1
}

// splitDottedKey splits a TOML dotted key into its parts.
func splitDottedKey(s string) []string {
	var out []string
	s = strings.TrimSpace(s)
	for s != "" {
		var part string
		switch s[0] {
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return out
			}
			part = tomlString(s[:end+1])
			s = s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return out
			}
			part = s[1 : end+1]
			s = s[end+2:]
		default:
			end := strings.IndexAny(s, ". \t")
			if end < 0 {
				end = len(s)
			}
			part = s[:end]
			s = s[end:]
		}
		out = append(out, part)
		s = strings.TrimSpace(s)
		s = strings.TrimPrefix(s, ".")
		s = strings.TrimSpace(s)
	}
	return out
}

// tomlString reads a basic ("…") or literal ('…') TOML string value.
func tomlString(v string) string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "'") {
		if end := strings.IndexByte(v[1:], '\''); end >= 0 {
			return v[1 : end+1]
		}
		return ""
	}
	if strings.HasPrefix(v, `"`) {
		end := 1
		for end < len(v) && v[end] != '"' {
			if v[end] == '\\' {
				end++
			}
			end++
		}
		if end < len(v) {
			if s, err := strconv.Unquote(v[:end+1]); err == nil {
				return s
			}
			return gjson.Parse(v[:end+1]).Str
		}
	}
	return ""
}

// codexProjectTrusted reports whether Codex trusts dir or a dir above it.
func (st codexState) projectTrusted(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if st.projects[d] == "trusted" {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

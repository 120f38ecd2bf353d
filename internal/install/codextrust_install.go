package install

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/pelletier/go-toml/v2"
)

// trustHooks records, in the client's trust file (Codex's config.toml),
// that the user trusts the server's interceptor hooks in hooksPath as they
// are now: what /hooks in codex writes when a person reviews and trusts
// them. Only the hooks install wrote for the server are trusted, each by
// the hash of its exact command, matcher and timeout; any later change to
// one makes Codex skip it again until it is trusted anew. Records already
// there with the same hash are left alone, ones with another hash get the
// new one; nothing else in the file changes.
func trustHooks(env Env, c *hooks.Client, hooksPath string, o Options) (*Result, error) {
	if c.TrustRecord.Rel == "" {
		return nil, fmt.Errorf("--trust: %s runs new hooks without being asked to trust them", c.Display)
	}
	hf, err := openConfig(hooksPath, false, false)
	if err != nil {
		return nil, err
	}
	var want [][2]string // key, hash
	if hf.data != nil {
		found, err := findHooks(hf.path, hf.data, false, c)
		if err != nil {
			return nil, err
		}
		for _, h := range found {
			if !h.command.serves(o.Server) && h.command.Sub != "approve" {
				continue
			}
			hash, ok := codexHookHash(h.event, h.matcher, h.hook)
			if !ok {
				return nil, fmt.Errorf("--trust: %s: the %s hook has fields whose trust hash is not known here; trust it with /hooks in codex", hf.path, h.event)
			}
			want = append(want, [2]string{codexHookKey(hf.path, h.event, h.group, h.index), hash})
		}
	}
	f, err := openConfig(env.resolve(c.TrustRecord), !o.DryRun, !o.DryRun)
	if err != nil {
		return nil, err
	}
	defer f.unlock()
	res := &Result{Client: o.Client, Scope: o.Scope, Path: f.path, Created: f.data == nil}
	doc := string(f.data)
	st, err := parseCodexState(f.path, f.data)
	if err != nil {
		return nil, err
	}
	for _, w := range want {
		key, hash := w[0], w[1]
		rec, ok := st.Hooks.State[key]
		switch {
		case ok && rec.TrustedHash == hash:
		case ok:
			re := regexp.MustCompile(`(?m)^\[hooks\.state\.` + regexp.QuoteMeta(jsonString(key)) + `\][ \t]*\n(?:[^\[\n].*\n|\n)*?[ \t]*trusted_hash[ \t]*=[ \t]*("[^"\n]*")`)
			m := re.FindStringSubmatchIndex(doc)
			if m == nil {
				return nil, fmt.Errorf("--trust: %s trusts %s with another hash in a form install does not edit: trust it with /hooks in codex", f.path, key)
			}
			doc = doc[:m[2]] + jsonString(hash) + doc[m[3]:]
		default:
			if doc != "" && !strings.HasSuffix(doc, "\n") {
				doc += "\n"
			}
			if doc != "" {
				doc += "\n"
			}
			doc += "[hooks.state." + jsonString(key) + "]\ntrusted_hash = " + jsonString(hash) + "\n"
		}
	}
	out := []byte(doc)
	if f.data == nil && doc == "" {
		out = nil
	}
	return res, f.commit(res, out, o.DryRun, false)
}

// parseCodexState reads config.toml's trust records from data.
func parseCodexState(path string, data []byte) (codexConfig, error) {
	var st codexConfig
	if err := toml.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

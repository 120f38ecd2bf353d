package install

import (
	"bytes"
	"slices"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Uninstall takes back the trust records install --trust wrote (Codex's
// [hooks.state] in config.toml): a record of a hook uninstall removed,
// whose trusted_hash is that hook's, trusts nothing any more. It goes,
// with what install added around it, so install --trust then uninstall
// gives back the file's bytes.

// trustKeys are the trust record keys and hashes of interceptor's hooks in
// a hooks file (doc), as Codex keys them.
func trustKeys(c *hooks.Client, path string, doc []byte) map[string]string {
	out := map[string]string{}
	if doc == nil {
		return out
	}
	found, err := findHooks(path, doc, false, c)
	if err != nil {
		return out
	}
	for _, h := range found {
		if hash, ok := codexHookHash(h.event, h.matcher, h.hook); ok {
			out[codexHookKey(path, h.event, h.group, h.index)] = hash
		}
	}
	return out
}

// untrustHooks removes from the client's trust file the records of the
// hooks that were in the hooks file before (its interceptor hooks, keyed)
// and are not after, when a record still trusts exactly that hook. Codex
// keys a record by the hook's place in the file, so removing one server's
// groups moves the next server's hooks: a record that trusted a hook at
// its old place moves with it (the same hook, trusted as it was), else
// Codex would skip it silently.
func untrustHooks(env Env, c *hooks.Client, before, after map[string]string, o Options) (*Result, error) {
	var gone, moved [][2]string // key, hash
	oldKey := map[string]string{}
	for key, hash := range before {
		if after[key] != hash {
			gone = append(gone, [2]string{key, hash})
			oldKey[hash] = key
		}
	}
	for key, hash := range after {
		if before[key] != hash && oldKey[hash] != "" {
			moved = append(moved, [2]string{key, hash})
		}
	}
	if c.TrustRecord.Rel == "" || len(gone) == 0 {
		return nil, nil
	}
	byKey := func(a, b [2]string) int { return bytes.Compare([]byte(a[0]), []byte(b[0])) }
	slices.SortFunc(gone, byKey)
	slices.SortFunc(moved, byKey)
	f, err := openConfig(env.Resolve(c.TrustRecord), !o.DryRun, false)
	if err != nil {
		return nil, err
	}
	defer f.unlock()
	res := &Result{Client: o.Client, Scope: o.Scope, Path: f.path}
	if f.data == nil {
		return res, nil
	}
	doc := bytes.Clone(f.data)
	if st, err := parseCodexState(c, f.path, doc); err == nil {
		for _, m := range moved {
			if st.Hooks.State[oldKey[m[1]]].TrustedHash == m[1] && st.Hooks.State[m[0]].TrustedHash != m[1] {
				doc = setTrustedHash(doc, m[0], m[1])
			}
		}
	}
	for _, g := range gone {
		doc = removeTrustedHash(doc, g[0], g[1])
	}
	if _, err := parseCodexState(c, f.path, doc); err != nil {
		return res, nil // never write what Codex would refuse: leave the records
	}
	var out []byte = doc
	backup, _ := readFileIfExists(f.path + BackupSuffix)
	switch {
	case backup != nil:
		out = endAsBefore(doc, backup)
	case len(bytes.TrimSpace(doc)) == 0:
		out = nil // install created it for the records alone
	}
	err = f.commit(res, out, o.DryRun, false)
	return res, err
}

// endAsBefore is doc without the newline setTrustedHash added to end a
// file's last line, when that is all that stands between doc and before
// (the file before install).
func endAsBefore(doc, before []byte) []byte {
	if t, ok := bytes.CutSuffix(doc, []byte("\n")); ok && bytes.Equal(t, before) {
		return t
	}
	return doc
}

// removeTrustedHash takes hooks.state.<key>.trusted_hash out of doc when
// its value is hash, with the text setTrustedHash adds around it: the line
// it stands on, or its ", " in an inline table; a record table left empty
// goes with its header line and the blank line before it.
func removeTrustedHash(doc []byte, key, hash string) []byte {
	record := []string{"hooks", "state", key}
	field := append(slices.Clone(record), "trusted_hash")
	var (
		header     = -1 // the record's [table] line start
		entries    = 0  // key/values in the record's table
		start, end = -1, -1
		inline     bool
		table      []string
		visit      func(kv *unstable.Node, container []string, isInline bool)
	)
	visit = func(kv *unstable.Node, container []string, isInline bool) {
		path := append(slices.Clone(container), keyPath(kv.Key())...)
		v := kv.Value()
		if slices.Equal(path, field) && v.Kind == unstable.String && string(v.Data) == hash {
			start, end, inline = int(kv.Raw.Offset), int(v.Raw.Offset+v.Raw.Length), isInline
		}
		if v.Kind == unstable.InlineTable {
			for it := v.Children(); it.Next(); {
				if n := it.Node(); n.Kind == unstable.KeyValue {
					visit(n, path, true)
				}
			}
		}
	}
	var p unstable.Parser
	p.Reset(doc)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyPath(e.Key())
			if e.Kind == unstable.Table && slices.Equal(table, record) {
				header = lineStart(doc, int(firstKey(e).Raw.Offset))
			}
		case unstable.KeyValue:
			if slices.Equal(table, record) {
				entries++
			}
			visit(e, table, false)
		}
	}
	if p.Error() != nil || start < 0 {
		return doc
	}
	if inline {
		// "trusted_hash = "H", " before another entry, or alone in {}.
		rest := doc[end:]
		if i := bytes.IndexByte(rest, ','); i >= 0 && len(bytes.TrimSpace(rest[:i])) == 0 {
			j := i + 1
			for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
				j++
			}
			return slices.Concat(doc[:start], rest[j:])
		}
		return slices.Concat(doc[:start], doc[end:])
	}
	ls := lineStart(doc, start)
	if len(bytes.TrimSpace(doc[ls:start])) != 0 {
		return doc // not on a line of its own: not what install writes
	}
	le := lineEnd(doc, end)
	if len(bytes.TrimSpace(doc[end:le])) != 0 {
		return doc
	}
	if header >= 0 && entries == 1 && header < ls {
		// The record's table held only this: the header goes too, and
		// the blank line install put before it.
		between := doc[lineEnd(doc, header):ls]
		if len(bytes.TrimSpace(between)) == 0 {
			hs := header
			if hs >= 2 && doc[hs-1] == '\n' && doc[hs-2] == '\n' {
				hs--
			}
			return slices.Concat(doc[:hs], doc[le:])
		}
	}
	return slices.Concat(doc[:ls], doc[le:])
}

// firstKey is the first part of an expression's key.
func firstKey(e *unstable.Node) *unstable.Node {
	it := e.Key()
	it.Next()
	return it.Node()
}

// lineStart is where the line holding offset at starts.
func lineStart(doc []byte, at int) int {
	return bytes.LastIndexByte(doc[:at], '\n') + 1
}

// lineEnd is just past the newline ending the line holding offset at (or
// the end of doc).
func lineEnd(doc []byte, at int) int {
	if i := bytes.IndexByte(doc[at:], '\n'); i >= 0 {
		return at + i + 1
	}
	return len(doc)
}

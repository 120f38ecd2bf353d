package install

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// trustHooks records, in the client's trust file (Codex's config.toml),
// that the user trusts the server's interceptor hooks in hooksPath as they
// are now: what /hooks in codex writes when a person reviews and trusts
// them. Only the hooks install wrote for the server are trusted, each by
// the hash of its exact command, matcher and timeout; any later change to
// one makes Codex skip it again until it is trusted anew. Records already
// there with the same hash are left alone, ones with another hash get the
// new one; nothing else in the file changes.
//
// hooksBefore is the hooks file before this install: a trust file that
// already trusts interceptor hooks of it is install's doing, not the user's
// original, and gets no backup (uninstall removes a file it created).
func trustHooks(env Env, c *hooks.Client, hooksPath string, hooksBefore, hooksDoc []byte, o Options) (*Result, error) {
	if c.TrustRecord.Rel == "" {
		return nil, fmt.Errorf("--trust: %s runs new hooks without being asked to trust them", c.Display)
	}
	hf, err := openConfig(hooksPath, false, false)
	if err != nil {
		return nil, err
	}
	if hooksDoc != nil {
		hf.data = hooksDoc // what install wrote, or would write in a dry run
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
				return nil, fmt.Errorf("--trust: %s: the %s hook has fields whose trust hash is not known here; %s", hf.path, h.event, c.TrustStep)
			}
			want = append(want, [2]string{codexHookKey(hf.path, h.event, h.group, h.index), hash})
		}
	}
	f, err := openConfig(env.Resolve(c.TrustRecord), !o.DryRun, !o.DryRun)
	if err != nil {
		return nil, err
	}
	defer f.unlock()
	res := &Result{Client: o.Client, Scope: o.Scope, Path: f.path, Created: f.data == nil}
	before, err := parseCodexState(c, f.path, f.data)
	if err != nil {
		return nil, fmt.Errorf("--trust: %w: fix it and run again", err)
	}
	original := true
	for key, hash := range trustKeys(c, hf.path, hooksBefore) {
		original = original && before.Hooks.State[key].TrustedHash != hash
	}
	doc := bytes.Clone(f.data)
	for _, w := range want {
		doc = setTrustedHash(doc, w[0], w[1])
	}
	// Read back as Codex will: every record with its hash, in a file it
	// accepts. A record appended after hooks.state was closed as an inline
	// table, say, breaks the file and is refused here.
	st, err := parseCodexState(c, f.path, doc)
	for _, w := range want {
		if err == nil && st.Hooks.State[w[0]].TrustedHash != w[1] {
			err = fmt.Errorf("the record of %s stayed unchanged", approvals.Visible(w[0]))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--trust: %s holds hooks.state in a form install cannot add to (%v): trust the hooks yourself (%s)", f.path, err, c.TrustStep)
	}
	if f.data == nil && len(doc) == 0 {
		doc = nil
	}
	return res, f.commit(res, doc, o.DryRun, original)
}

// setTrustedHash sets hooks.state.<key>.trusted_hash to hash in the TOML
// document doc (valid TOML), changing only the bytes it must: a value there
// is replaced where it stands, however the record is spelled (its own
// [hooks.state."<key>"] table, an inline table, dotted keys); a record
// without one gets it added at its start; a missing record is appended as a
// table of its own.
func setTrustedHash(doc []byte, key, hash string) []byte {
	s := findTrustedHash(doc, key, hash)
	switch {
	case s.found && s.hash == hash:
		return doc
	case s.found:
		return slices.Concat(doc[:s.start], []byte(tomlString(hash)), doc[s.end:])
	case s.insertAt >= 0:
		return slices.Concat(doc[:s.insertAt], []byte(s.insert), doc[s.insertAt:])
	}
	if len(doc) > 0 {
		if doc[len(doc)-1] != '\n' {
			doc = append(doc, '\n')
		}
		doc = append(doc, '\n')
	}
	return append(doc, "[hooks.state."+tomlKey(key)+"]\ntrusted_hash = "+tomlString(hash)+"\n"...)
}

// hashSpot is where a TOML document holds one record's trusted_hash
// (found), or where one can be inserted into the record (insertAt >= 0).
type hashSpot struct {
	found      bool
	start, end int // the value's bytes, quotes included
	hash       string

	insertAt int
	insert   string
}

// findTrustedHash locates hooks.state.<key>.trusted_hash in doc, with the
// byte ranges go-toml's parser gives for each key and value.
func findTrustedHash(doc []byte, key, hash string) hashSpot {
	record := []string{"hooks", "state", key}
	field := append(slices.Clone(record), "trusted_hash")
	spot := hashSpot{insertAt: -1}
	insertAt := func(at int, text string) {
		if spot.insertAt < 0 {
			spot.insertAt, spot.insert = at, text
		}
	}
	// entry is trusted_hash written relative to the table at container.
	entry := func(container []string) string {
		return dottedKey(field[len(container):]) + " = " + tomlString(hash)
	}
	// visit looks at a key/value of the table or inline table at container.
	var visit func(kv *unstable.Node, container []string, inline bool)
	visit = func(kv *unstable.Node, container []string, inline bool) {
		path := append(slices.Clone(container), keyPath(kv.Key())...)
		v := kv.Value()
		switch {
		case slices.Equal(path, field) && v.Kind == unstable.String:
			spot.found, spot.hash = true, string(v.Data)
			spot.start, spot.end = int(v.Raw.Offset), int(v.Raw.Offset+v.Raw.Length)
			return
		case len(path) > len(record) && hasPrefix(path, record) && hasPrefix(record, container):
			// The record's first entry at this level (inside the record,
			// or a dotted key into it): trusted_hash goes in front of it,
			// on its own line or as the inline table's first entry.
			at := int(kv.Raw.Offset)
			if inline {
				insertAt(at, entry(container)+", ")
			} else {
				insertAt(at, entry(container)+"\n"+lineIndent(doc[:at]))
			}
		}
		if v.Kind != unstable.InlineTable {
			return
		}
		empty := true
		for it := v.Children(); it.Next(); {
			if n := it.Node(); n.Kind == unstable.KeyValue {
				empty = false
				visit(n, path, true)
			}
		}
		if empty && slices.Equal(path, record) {
			insertAt(int(v.Raw.Offset)+1, entry(record)) // after the '{'
		}
	}
	var p unstable.Parser
	p.Reset(doc)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyPath(e.Key())
			if e.Kind == unstable.Table && slices.Equal(table, record) {
				at, lead, eol := afterHeader(doc, e)
				insertAt(at, lead+entry(record)+eol)
			}
		case unstable.KeyValue:
			visit(e, table, false)
		}
	}
	return spot
}

// afterHeader is where the line after a table header starts: past the
// first newline after its last key, since nothing else on the header's line
// (the ']', spaces, a comment) can hold one. A line put there ends with eol,
// the header's own line ending, and needs lead in front when the header
// ends the file with no newline.
func afterHeader(doc []byte, header *unstable.Node) (at int, lead, eol string) {
	var last *unstable.Node
	for it := header.Key(); it.Next(); {
		last = it.Node()
	}
	end := int(last.Raw.Offset + last.Raw.Length)
	nl := bytes.IndexByte(doc[end:], '\n')
	if nl < 0 {
		return len(doc), "\n", "\n"
	}
	eol = "\n"
	if nl > 0 && doc[end+nl-1] == '\r' {
		eol = "\r\n"
	}
	return end + nl + 1, "", eol
}

func keyPath(it unstable.Iterator) []string {
	var path []string
	for it.Next() {
		path = append(path, string(it.Node().Data))
	}
	return path
}

func hasPrefix(s, prefix []string) bool {
	return len(s) >= len(prefix) && slices.Equal(s[:len(prefix)], prefix)
}

func dottedKey(parts []string) string {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = tomlKey(p)
	}
	return strings.Join(quoted, ".")
}

// tomlKey is k as a TOML key: bare when TOML allows, else a basic string.
func tomlKey(k string) string {
	if k == "" || strings.IndexFunc(k, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return tomlString(k)
	}
	return k
}

// tomlString is s as a TOML basic string, with the escapes TOML requires:
// the quote, the backslash and the control characters other than tab.
// Bytes that are not UTF-8 (TOML has no way to write them) become U+FFFD.
func tomlString(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20 && r != '\t' || r == 0x7f:
			b = fmt.Appendf(b, `\u%04X`, r)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, '"'))
}

// parseCodexState reads the trust records of c (Codex) in its
// config.toml from data. A file c would refuse, not TOML or with a value
// of another type where a record is read, is an error naming the file,
// line and column.
func parseCodexState(c *hooks.Client, path string, data []byte) (codexConfig, error) {
	var st codexConfig
	var de *toml.DecodeError
	if err := toml.Unmarshal(data, &struct{}{}); errors.As(err, &de) {
		row, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		return st, fmt.Errorf("%s:%d:%d is not valid TOML, which %s refuses too: %s", path, row, col, c.Display, approvals.Visible(msg))
	}
	if err := toml.Unmarshal(data, &st); errors.As(err, &de) {
		row, col := de.Position()
		return st, fmt.Errorf("%s:%d:%d: %s has a type %s refuses there", path, row, col, approvals.Visible(dottedKey(de.Key())), c.Display)
	} else if err != nil {
		return st, fmt.Errorf("%s: %s", path, approvals.Visible(err.Error()))
	}
	return st, nil
}

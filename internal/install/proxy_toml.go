package install

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's MCP servers are tables of config.toml, [mcp_servers.<name>].
// install --proxy handles a server written as such a table (what `codex
// mcp add` writes): the entry is the text from its header to the end of
// its last key's line, edited by the byte ranges go-toml's parser gives,
// as codextrust_install.go edits trust records. A server written inline or
// with dotted keys is refused with a line saying so.

// tomlDoc is a config.toml and the server's table in it.
type tomlDoc struct {
	path       string
	data       []byte
	start, end int // the entry: its header's line to its last key's line end
	keys       []tomlKV
	eol        string
}

// tomlKV is one key of the table: its lines, and its value's bytes.
type tomlKV struct {
	name                 string // the first part of its key
	dotted               bool   // a dotted key (env.X = ...)
	lineStart, lineEnd   int
	valStart, valEnd     int
	kind                 unstable.Kind
	inline               [][2]string // an inline table's string members, in order
	inlineOK, stringList bool
	list                 []string
}

func tomlEntry(path string, data []byte, list []string, server string) (entryDoc, error) {
	table := append(slices.Clone(list), server)
	d := &tomlDoc{path: path, data: data, start: -1, eol: "\n"}
	var p unstable.Parser
	p.Reset(data)
	var cur []string
	inTable, inSub := false, false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			cur = keyPath(e.Key())
			inTable = e.Kind == unstable.Table && slices.Equal(cur, table)
			// [mcp_servers.wf.env] and the like stay as they are.
			inSub = len(cur) > len(table) && hasPrefix(cur, table)
			if inTable {
				d.start = lineStart(data, int(firstKey(e).Raw.Offset))
				d.end = lineEnd(data, int(firstKey(e).Raw.Offset))
				if d.end >= 2 && data[d.end-2] == '\r' {
					d.eol = "\r\n"
				}
			}
		case unstable.KeyValue:
			full := append(slices.Clone(cur), keyPath(e.Key())...)
			switch {
			case inTable:
				d.keys = append(d.keys, d.kv(e))
				d.end = d.keys[len(d.keys)-1].lineEnd
			case !inSub && hasPrefix(full, table):
				return nil, fmt.Errorf("%s: server %q is written inline or with dotted keys; install --proxy edits it as a [%s] table of its own: rewrite it so, or wire the proxy by hand (docs/proxy.md)", path, server, dottedKey(table))
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("%s is not valid TOML (%v)", path, err)
	}
	if d.start < 0 {
		return nil, nil
	}
	return d, nil
}

func (d *tomlDoc) kv(e *unstable.Node) tomlKV {
	parts := keyPath(e.Key())
	v := e.Value()
	// The key/value's Raw spans it whole; an array's or inline table's
	// own Raw does not, so the value starts after the '='.
	var last *unstable.Node
	for it := e.Key(); it.Next(); {
		last = it.Node()
	}
	eq := int(last.Raw.Offset+last.Raw.Length) + bytes.IndexByte(d.data[last.Raw.Offset+last.Raw.Length:], '=')
	start := eq + 1
	for start < len(d.data) && (d.data[start] == ' ' || d.data[start] == '\t') {
		start++
	}
	k := tomlKV{name: parts[0], dotted: len(parts) > 1, kind: v.Kind,
		lineStart: lineStart(d.data, int(e.Raw.Offset)),
		valStart:  start, valEnd: int(e.Raw.Offset + e.Raw.Length)}
	k.lineEnd = lineEnd(d.data, k.valEnd)
	switch v.Kind {
	case unstable.InlineTable:
		k.inlineOK = true
		for it := v.Children(); it.Next(); {
			n := it.Node()
			if n.Kind != unstable.KeyValue {
				continue
			}
			name := keyPath(n.Key())
			if len(name) != 1 || n.Value().Kind != unstable.String {
				k.inlineOK = false
				continue
			}
			k.inline = append(k.inline, [2]string{name[0], string(n.Value().Data)})
		}
	case unstable.Array:
		k.stringList = true
		for it := v.Children(); it.Next(); {
			n := it.Node()
			if n.Kind != unstable.String {
				k.stringList = false
				continue
			}
			k.list = append(k.list, string(n.Data))
		}
	}
	return k
}

func (d *tomlDoc) find(name string) (tomlKV, bool) {
	for _, k := range d.keys {
		if k.name == name && !k.dotted {
			return k, true
		}
	}
	return tomlKV{}, false
}

func (d *tomlDoc) str(name string) (string, bool) {
	k, ok := d.find(name)
	if !ok || k.kind != unstable.String {
		return "", false
	}
	var s string
	if toml.Unmarshal([]byte("v = "+string(d.data[k.valStart:k.valEnd])), &struct {
		V *string `toml:"v"`
	}{&s}) != nil {
		return "", false
	}
	return s, true
}

func (d *tomlDoc) raw() []byte { return d.data[d.start:d.end] }

func (d *tomlDoc) proxied() (string, bool) {
	cmd, ok := d.str("command")
	if !ok {
		return "", false
	}
	args, _ := d.find("args")
	return ProxyArgv(cmd, args.list)
}

// read reads the table as Codex starts or reaches the server.
func (d *tomlDoc) read() (serverEntry, error) {
	var s serverEntry
	for _, k := range d.keys {
		if k.dotted && (k.name == "http_headers" || k.name == "env_http_headers") {
			return s, fmt.Errorf("%q is written with dotted keys; install --proxy reads it as an inline table", k.name)
		}
	}
	if cmd, ok := d.str("command"); ok {
		s.command = []string{cmd}
		if args, ok := d.find("args"); ok {
			if !args.stringList {
				return s, errors.New(`"args" is not an array of strings`)
			}
			s.command = append(s.command, args.list...)
		}
		return s, nil
	}
	url, ok := d.str("url")
	if !ok {
		return s, errors.New("neither a command nor a url")
	}
	s.url = url
	for _, k := range []string{"env", "env_vars", "bearer_token"} {
		if _, ok := d.find(k); ok {
			return s, fmt.Errorf("a url server with %q is not what install --proxy knows how to rewrite: wire it by hand (docs/proxy.md)", k)
		}
	}
	if k, ok := d.find("http_headers"); ok {
		if !k.inlineOK {
			return s, errors.New(`"http_headers" is not an inline table of strings`)
		}
		s.headers = k.inline
	}
	if k, ok := d.find("env_http_headers"); ok {
		if !k.inlineOK {
			return s, errors.New(`"env_http_headers" is not an inline table of strings`)
		}
		s.header = k.inline
	}
	if v, ok := d.str("bearer_token_env_var"); ok {
		s.bearer = v
	}
	return s, nil
}

func (d *tomlDoc) rewrite(c *hooks.Client, o Options) ([]byte, []byte, []string, error) {
	s, err := d.read()
	if err != nil {
		return nil, nil, nil, err
	}
	argv, env, err := proxyCommand(c, o, s)
	if err != nil {
		return nil, nil, nil, err
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	line := func(k string, v string) string { return tomlKey(k) + " = " + v + d.eol }
	var notes []string
	if s.url == "" {
		cmd, _ := d.find("command")
		edits = append(edits, edit{cmd.valStart, cmd.valEnd, tomlString(argv[0])})
		if args, ok := d.find("args"); ok {
			edits = append(edits, edit{args.valStart, args.valEnd, tomlArray(argv[1:])})
		} else {
			edits = append(edits, edit{cmd.lineEnd, cmd.lineEnd, line("args", tomlArray(argv[1:]))})
		}
	} else {
		notes = relayNotes(c, argv[0], s.url)
		url, _ := d.find("url")
		text := line("command", tomlString(argv[0])) + line("args", tomlArray(argv[1:]))
		var pass []string
		for _, h := range s.header {
			pass = append(pass, h[1])
		}
		if s.bearer != "" {
			pass = append(pass, s.bearer)
		}
		if len(pass) > 0 {
			// Codex gives a command only the variables it is told to.
			text += line("env_vars", tomlArray(pass))
		}
		if len(env) > 0 {
			var kv []string
			for _, e := range env {
				kv = append(kv, tomlKey(e[0])+" = "+tomlString(e[1]))
			}
			text += line("env", "{ "+strings.Join(kv, ", ")+" }")
		}
		edits = append(edits, edit{url.lineStart, url.lineEnd, text})
		for _, k := range []string{"http_headers", "env_http_headers", "bearer_token_env_var"} {
			if kv, ok := d.find(k); ok {
				edits = append(edits, edit{kv.lineStart, kv.lineEnd, ""})
			}
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out := bytes.Clone(d.data)
	end := d.end // every edit is within the entry
	for _, e := range edits {
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
		end += len(e.text) - (e.end - e.start)
	}
	return out, out[d.start:end], notes, nil
}

func tomlArray(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = tomlString(w)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func (d *tomlDoc) same(a, b []byte) bool {
	var x, y map[string]any
	if toml.Unmarshal(a, &x) != nil || toml.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func (d *tomlDoc) restore(orig []byte) ([]byte, error) {
	return slices.Concat(d.data[:d.start], orig, d.data[d.end:]), nil
}

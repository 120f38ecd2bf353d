package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/tailscale/hujson"
)

// install --proxy rewrites a server's entry in the client's own MCP config
// so the client starts `interceptor proxy -- <its command>` instead of the
// server, or `interceptor-http proxy --url <its address>` instead of
// reaching it over HTTP. Only the entry changes (the rest of the file keeps
// its bytes), and within it only what must: a command's "command" and
// "args"; an address's url, type and headers, which become a command and
// its environment. The entry as it was and as install wrote it are kept
// beside the config (ProxyRecordSuffix), so uninstall --proxy puts the
// original bytes back, whatever else changed in the file meanwhile; an
// entry changed since install is left alone, with the original shown.
//
// An address and its headers (an Authorization with its secret, a key in
// the address's path or query) never go into the proxy's arguments, which
// every user of the machine can read (ps, /proc): the address moves into
// the entry's environment (URLEnv, read by --url-env), each header, as
// written, under a name of its own (INTERCEPTOR_HEADER_<NAME>, read by
// --header-env NAME=VAR). A process's environment is readable by its own
// user only. Every client install --proxy knows can give a command an
// environment; one that could not would be refused (proxyCommand).

// ProxyRecordSuffix names the file beside an MCP config that holds, for
// each server install --proxy rewrote in it, the entry before and after:
// private (0600: an entry may hold a secret header), removed with its last
// record.
const ProxyRecordSuffix = ".interceptor-proxy"

// HeaderEnvPrefix starts the name of the variable a header's value moves to.
const HeaderEnvPrefix = "INTERCEPTOR_HEADER_"

// proxyRecords are the entries install --proxy rewrote in one config.
type proxyRecords struct {
	Entries []proxyEntry `json:"entries"`
}

type proxyEntry struct {
	Server   string `json:"server"`
	List     string `json:"list"`     // the server list's key, {project} resolved
	Original string `json:"original"` // the entry's bytes as they were
	Written  string `json:"written"`  // as install wrote them
}

func recordPath(config string) string { return config + ProxyRecordSuffix }

func readRecords(config string) (proxyRecords, error) {
	var r proxyRecords
	data, err := ReadConfig(recordPath(config))
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %v", recordPath(config), err)
	}
	return r, nil
}

func (r *proxyRecords) find(server, list string) int {
	return slices.IndexFunc(r.Entries, func(e proxyEntry) bool { return e.Server == server && e.List == list })
}

// write saves the records, or removes the file when none is left.
func (r proxyRecords) write(config string) error {
	path := recordPath(config)
	if len(r.Entries) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return privfs.WriteFile(path, "proxy record", append(data, '\n'), privfs.WriteOptions{Mode: 0o600, Sync: true, Temp: "." + filepath.Base(path) + ".tmp-"})
}

// ProxyArgv reports whether a server's command runs interceptor's proxy:
// its binary, and the words after it.
func ProxyArgv(command string, args []string) (bin string, ok bool) {
	base := strings.TrimSuffix(filepath.Base(command), ".exe")
	return command, strings.HasPrefix(base, "interceptor") && len(args) > 0 && args[0] == "proxy"
}

// proxyArgs are the hook options the proxy takes, as its words.
func (o HookOptions) proxyArgs() []string {
	return o.argsFor(func(opt *carry.Option) bool { return opt.Takers&carry.Proxy != 0 })
}

// HTTPBin is the relay binary beside bin (interceptor-http, which
// releases ship next to interceptor).
func HTTPBin(bin string) string {
	name := "interceptor-http"
	if strings.HasSuffix(bin, ".exe") {
		name += ".exe"
	}
	return filepath.Join(filepath.Dir(bin), name)
}

// listPath is l's key, part by part, with the project dir in it (a part
// that may hold dots itself).
func listPath(l hooks.ServerList, project string) []string {
	parts := strings.Split(l.Key, ".")
	for i, p := range parts {
		if p == "{project}" {
			parts[i] = project
		}
	}
	return parts
}

// InstallProxy rewrites the server's entries in the client's MCP lists in
// scope to run through the proxy.
func InstallProxy(env Env, o Options) (*Result, error) {
	return editProxy(env, o, true)
}

// UninstallProxy puts back the entries InstallProxy rewrote.
func UninstallProxy(env Env, o Options) (*Result, error) {
	return editProxy(env, o, false)
}

func editProxy(env Env, o Options, install bool) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	_, c, err := lookup(o.Client)
	if err != nil {
		return nil, err
	}
	if install {
		if err := checkBin(o.Bin); err != nil {
			return nil, err
		}
	}
	// The entry is rewritten where the client keeps it, whatever the
	// scope: its hooks would be in user scope, the proxy is in the entry.
	// Another project's list counts only when this one's have no such
	// server: a server of the same name there may be another server.
	var res *Result
	var where []string
	all := places(env, c)
	for _, elsewhere := range []bool{false, true} {
		for _, p := range all {
			if p.elsewhere != elsewhere || res != nil && elsewhere {
				continue
			}
			where = append(where, p.where())
			r, err := proxyFile(env, c, p, o, install)
			if err != nil {
				return nil, err
			}
			if r == nil {
				continue
			}
			if res == nil {
				res = r
			} else {
				res.join(r, didVerb(o.DryRun, "changed", "would change"))
			}
		}
	}
	if res == nil {
		if !install {
			return &Result{Client: o.Client, Scope: o.Scope, Path: strings.Join(slices.Compact(where), "; ")}, nil
		}
		msg := fmt.Sprintf("%s has no MCP server named %q (looked in: %s)", c.Display, o.Server, strings.Join(slices.Compact(where), "; "))
		if names, _ := ConfiguredServers(env, c); len(names) > 0 {
			msg += " (it has " + strings.Join(names, ", ") + ")"
			if near := Nearest(o.Server, names); near != "" {
				msg += fmt.Sprintf("; did you mean --server %s?", near)
			}
		}
		return nil, errors.New(msg)
	}
	return res, nil
}

// proxyFile rewrites (install) or puts back the server's entry in the list
// l of the file at path; nil when the file or the entry is not there.
func proxyFile(env Env, c *hooks.Client, p place, o Options, install bool) (*Result, error) {
	f, err := openConfig(p.path, !o.DryRun, false)
	if err != nil {
		return nil, err
	}
	defer f.unlock()
	if f.data == nil {
		return nil, nil
	}
	parts := p.parts
	key := strings.Join(parts, ".") // names the list in the record
	var doc entryDoc
	if p.list.TOML {
		doc, err = tomlEntry(f.path, f.data, parts, o.Server)
	} else {
		doc, err = jsonEntry(f.path, f.data, parts, o.Server)
	}
	if err != nil || doc == nil {
		return nil, err
	}
	recs, err := readRecords(f.path)
	if err != nil {
		return nil, err
	}
	res := &Result{Client: o.Client, Scope: o.Scope, Path: f.path, Where: placeWhere(p.scope, p.project, f.path)}
	ri := recs.find(o.Server, key)
	var out []byte
	if install {
		if _, ok := doc.proxied(); ok {
			return res, nil // already runs through the proxy
		}
		orig := doc.raw()
		var written []byte
		var notes []string
		out, written, notes, err = doc.rewrite(c, o)
		if err != nil {
			return nil, fmt.Errorf("%s: server %q: %w", f.path, o.Server, err)
		}
		res.Notes = notes
		rec := proxyEntry{Server: o.Server, List: key, Original: string(orig), Written: string(written)}
		if ri >= 0 {
			recs.Entries[ri] = rec
		} else {
			recs.Entries = append(recs.Entries, rec)
		}
	} else {
		if _, ok := doc.proxied(); !ok {
			return res, nil
		}
		if ri < 0 {
			return nil, fmt.Errorf("%s: server %q runs through the proxy, but %s holds no record of what it was: put its command (the words after --) or --url back by hand", f.path, o.Server, recordPath(f.path))
		}
		rec := recs.Entries[ri]
		if !doc.same(doc.raw(), []byte(rec.Written)) {
			return nil, fmt.Errorf("%s: server %q changed since install --proxy wrote it, so it is left as it is: put it back by hand; it was %s", f.path, o.Server, oneLineJSON(rec.Original))
		}
		if out, err = doc.restore([]byte(rec.Original)); err != nil {
			return nil, fmt.Errorf("%s: server %q: %w", f.path, o.Server, err)
		}
		recs.Entries = slices.Delete(recs.Entries, ri, ri+1)
	}
	if err := f.commit(res, out, o.DryRun, false); err != nil || o.DryRun || !res.Changed {
		return res, err
	}
	if err := recs.write(f.path); err != nil {
		return res, fmt.Errorf("%s: %w", recordPath(f.path), err)
	}
	return res, nil
}

// oneLineJSON is an entry's text on one line, for an error message.
func oneLineJSON(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// entryDoc is a config with one server's entry found in it.
type entryDoc interface {
	// raw is the entry's bytes as the file holds them now.
	raw() []byte
	// proxied reports whether the entry runs interceptor's proxy.
	proxied() (string, bool)
	// rewrite returns the file with the entry running through the proxy,
	// and the entry's bytes in it.
	rewrite(c *hooks.Client, o Options) (out, entry []byte, notes []string, err error)
	// same reports whether two texts of the entry say the same.
	same(a, b []byte) bool
	// restore returns the file with the entry's bytes replaced by orig.
	restore(orig []byte) ([]byte, error)
}

// serverEntry is one server's entry, as install --proxy reads it: how the
// client starts it, or where it reaches it.
type serverEntry struct {
	command []string    // the command and its arguments
	url     string      // a Streamable HTTP address
	headers [][2]string // its HTTP headers, in order
	header  [][2]string // header name, variable already holding its value (Codex)
	bearer  string      // variable holding a bearer token (Codex)
	oauth   entryOAuth  // its OAuth block, which the relay takes over (proxy_oauth.go)
}

// proxyCommand is the command that runs the entry through the proxy, and
// the environment it adds: the server's address (URLEnv) and the header
// values, by variable. A client whose entry can hold no environment
// (envKey "") gets neither: an address or a header that would have to
// stand in the relay's arguments is refused, naming where its secret is.
func proxyCommand(c *hooks.Client, o Options, e serverEntry) (argv []string, env [][2]string, err error) {
	if e.url == "" {
		argv = append([]string{o.Bin, "proxy", "--server-name", o.Server}, o.Hook.proxyArgs()...)
		return append(append(argv, "--"), e.command...), nil, nil
	}
	argv = append([]string{HTTPBin(o.Bin), "proxy", "--server-name", o.Server}, o.Hook.proxyArgs()...)
	if c.MCPEntry.Env == "" {
		if where := URLSecrets(e.url); len(where) > 0 {
			return nil, nil, fmt.Errorf("%s cannot give a command an environment, and the relay's arguments are readable by every user of this machine: the address %s holds a secret in %s; wire the proxy by hand (docs/proxy.md)", c.Display, MaskURL(e.url), strings.Join(where, ", "))
		}
		if len(e.headers) > 0 {
			return nil, nil, fmt.Errorf("%s cannot give a command an environment, and the relay's arguments are readable by every user of this machine: header %q would stand in them; wire the proxy by hand (docs/proxy.md)", c.Display, e.headers[0][0])
		}
		argv = append(argv, "--url", e.url)
	} else {
		argv = append(argv, "--url-env", URLEnv)
		env = append(env, [2]string{URLEnv, e.url})
	}
	used := map[string]bool{}
	for _, h := range e.headers {
		v := headerVar(h[0], used)
		env = append(env, [2]string{v, h[1]})
		argv = append(argv, "--header-env", h[0]+"="+v)
	}
	for _, h := range e.header {
		argv = append(argv, "--header-env", h[0]+"="+h[1])
	}
	if e.bearer != "" {
		argv = append(argv, "--bearer-env", e.bearer)
	}
	return append(argv, e.oauth.args()...), env, nil
}

// headerVar is the variable a header's value moves to: its name in
// capitals, other characters as _, numbered when two headers come out alike.
func headerVar(name string, used map[string]bool) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(name) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	v := HeaderEnvPrefix + b.String()
	for i := 2; used[v]; i++ {
		v = HeaderEnvPrefix + b.String() + "_" + strconv.Itoa(i)
	}
	used[v] = true
	return v
}

// jsonDoc is a JSON (or JSONC) config and the server's entry in it.
type jsonDoc struct {
	path   string
	e      *editor
	member *hujson.ObjectMember // the server's member of its list
	list   list                 // the list
	entry  list                 // its value, an object
}

// jsonEntry finds server in the list at the path list of a JSON config;
// nil when there is none.
func jsonEntry(path string, data []byte, list []string, server string) (entryDoc, error) {
	if len(trimSpace(data)) == 0 {
		return nil, nil
	}
	v, err := parseJSONC(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v); fix it and run again", path, err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, nil
	}
	e := &editor{root: v, layout: detectLayout(data)}
	l := e.top()
	for _, part := range list {
		i, ok := l.find(part)
		if !ok {
			return nil, nil
		}
		if l, ok = l.child(i, '{'); !ok {
			return nil, nil
		}
	}
	i, ok := l.find(server)
	if !ok {
		return nil, nil
	}
	entry, ok := l.child(i, '{')
	if !ok {
		return nil, fmt.Errorf("%s: server %q is not an object", path, server)
	}
	return &jsonDoc{path: path, e: e, member: &l.obj.Members[i], list: l, entry: entry}, nil
}

func (d *jsonDoc) raw() []byte { return hujson.Value{Value: d.member.Value.Value}.Pack() }

// str is the entry's string member key ("", false: none, or not a string).
func (d *jsonDoc) str(key string) (string, bool) {
	i, ok := d.entry.find(key)
	if !ok {
		return "", false
	}
	return stringValue(d.entry.value(i))
}

// strings is the entry's member key as strings; ok false when it is there
// but not an array of strings.
func (d *jsonDoc) strings(key string) (out []string, found, ok bool) {
	i, found := d.entry.find(key)
	if !found {
		return nil, false, true
	}
	arr, isArr := d.entry.value(i).Value.(*hujson.Array)
	if !isArr {
		return nil, true, false
	}
	for j := range arr.Elements {
		s, isStr := stringValue(&arr.Elements[j])
		if !isStr {
			return nil, true, false
		}
		out = append(out, s)
	}
	return out, true, true
}

func (d *jsonDoc) proxied() (string, bool) {
	if cmd, ok := d.str("command"); ok {
		args, _, _ := d.strings("args")
		return ProxyArgv(cmd, args)
	}
	if words, found, ok := d.strings("command"); found && ok && len(words) > 0 {
		return ProxyArgv(words[0], words[1:])
	}
	return "", false
}

// read reads the entry as the client would start or reach it.
func (d *jsonDoc) read(c *hooks.Client) (serverEntry, error) {
	var s serverEntry
	m := c.MCPEntry
	for _, k := range m.Auth {
		if _, ok := d.entry.find(k); ok {
			return s, fmt.Errorf("%s authenticates it itself (%q), which the relay cannot do: wire the proxy by hand with the headers it needs (docs/proxy.md)", c.Display, k)
		}
	}
	if _, ok := d.entry.find("command"); ok {
		if m.CommandArray {
			words, _, ok := d.strings("command")
			if !ok || len(words) == 0 {
				return s, errors.New(`"command" is not an array of strings`)
			}
			s.command = words
			return s, nil
		}
		cmd, ok := d.str("command")
		if !ok {
			return s, errors.New(`"command" is not a string`)
		}
		args, _, ok := d.strings("args")
		if !ok {
			return s, errors.New(`"args" is not an array of strings`)
		}
		s.command = append([]string{cmd}, args...)
		return s, nil
	}
	typ, _ := d.str(m.Type)
	for _, u := range m.HTTP {
		url, ok := d.str(u.Key)
		if !ok {
			continue
		}
		if u.Types != nil && !slices.Contains(u.Types, typ) {
			return s, fmt.Errorf("%s reaches it at %s over %s, not Streamable HTTP, which is all the relay speaks", c.Display, MaskURL(url), transportName(typ))
		}
		s.url = url
		if hi, ok := d.entry.find(m.Headers); ok {
			hl, isObj := d.entry.child(hi, '{')
			if !isObj {
				return s, fmt.Errorf("%q is not an object", m.Headers)
			}
			for j := range hl.len() {
				v, isStr := stringValue(hl.value(j))
				if !isStr {
					return s, fmt.Errorf("header %q is not a string", hl.key(j))
				}
				s.headers = append(s.headers, [2]string{hl.key(j), v})
			}
		}
		if _, ok := d.entry.find(m.Env); ok {
			return s, fmt.Errorf("an address with %q is not what install --proxy knows how to rewrite: wire it by hand (docs/proxy.md)", m.Env)
		}
		if i, ok := d.entry.find(m.OAuth); ok && m.OAuth != "" {
			var err error
			if s.oauth, err = readOAuth(c, d.entry.value(i)); err != nil {
				return s, err
			}
		}
		return s, nil
	}
	return s, errors.New("neither a command nor a Streamable HTTP address install --proxy knows")
}

// relayNotes say what starts the relay, and how to get it when it is not
// there yet.
func relayNotes(c *hooks.Client, relay, url string) []string {
	notes := []string{fmt.Sprintf("%s now starts %s, which relays to %s (the address is in the entry's environment, %s, never in the relay's arguments)", c.Display, relay, MaskURL(url), URLEnv)}
	if strings.Contains(url, "$") || strings.Contains(url, "{env:") {
		notes = append(notes, fmt.Sprintf("the address names a variable: it now stands in the entry's environment as written, so the relay gets it expanded only if %s expands variables there as it did in the address (docs/proxy.md)", c.Display))
	}
	if fi, err := os.Stat(relay); err != nil || fi.IsDir() {
		notes = append(notes, fmt.Sprintf("%s does not exist (yet): it ships beside interceptor in each release; from a clone: go build -buildvcs=true -o %s ./cmd/interceptor-http", relay, relay))
	}
	return notes
}

func transportName(typ string) string {
	if typ == "" {
		return "SSE (no type)"
	}
	return fmt.Sprintf("%q", typ)
}

func (d *jsonDoc) rewrite(c *hooks.Client, o Options) ([]byte, []byte, []string, error) {
	s, err := d.read(c)
	if err != nil {
		return nil, nil, nil, err
	}
	m := c.MCPEntry
	argv, env, err := proxyCommand(c, o, s)
	if err != nil {
		return nil, nil, nil, err
	}
	e, ent := d.e, d.entry
	var notes []string
	if s.url != "" {
		notes = append(relayNotes(c, argv[0], s.url), oauthNote(c, s.oauth)...)
		// In come the command and the environment holding the headers,
		// at the end (laid out like the members there now); then out go
		// the address, its headers, its OAuth block and the transport's
		// type.
		n0 := ent.len()
		var drop []int
		for _, k := range []string{m.Headers, m.OAuth} {
			if i, ok := ent.find(k); ok {
				drop = append(drop, i)
			}
		}
		for _, u := range m.HTTP {
			if i, ok := ent.find(u.Key); ok {
				drop = append(drop, i)
			}
		}
		if i, ok := ent.find(m.Type); ok && m.Type != "" {
			if m.Stdio != "" {
				replace(ent.value(i), jsonString(m.Stdio))
			} else {
				drop = append(drop, i)
			}
		} else if m.Type != "" && m.Stdio != "" {
			e.insert(ent, m.Type, jsonString(m.Stdio))
		}
		d.setCommand(c, argv, true)
		if len(env) > 0 {
			kv := make([]string, 0, len(env))
			for _, v := range env {
				kv = append(kv, jsonString(v[0])+": "+jsonString(v[1]))
			}
			e.insert(ent, m.Env, "{"+strings.Join(kv, ", ")+"}")
		}
		for i := n0; !e.multiLine(ent) && i < ent.len(); i++ {
			// An entry on one line with one member had no separator to
			// copy: the new members get the usual space.
			if len(*ent.lead(i)) == 0 {
				*ent.lead(i) = hujson.Extra(" ")
			}
		}
		slices.Sort(drop)
		for _, i := range slices.Backward(slices.Compact(drop)) {
			e.remove(ent, i)
		}
	} else {
		d.setCommand(c, argv, false)
	}
	return e.bytes(), d.raw(), notes, nil
}

// setCommand writes argv as the entry's command: in place of the one
// there, or (fresh, after an address) at its end.
func (d *jsonDoc) setCommand(c *hooks.Client, argv []string, fresh bool) {
	e, ent := d.e, d.entry
	if c.MCPEntry.CommandArray {
		if i, ok := ent.find("command"); ok && !fresh {
			d.setArray(i, argv)
			return
		}
		e.insert(ent, "command", oneLineArray(argv))
		return
	}
	if i, ok := ent.find("command"); ok && !fresh {
		replace(ent.value(i), jsonString(argv[0]))
	} else {
		e.insert(ent, "command", jsonString(argv[0]))
	}
	if i, ok := ent.find("args"); ok {
		d.setArray(i, argv[1:])
		return
	}
	e.insert(ent, "args", oneLineArray(argv[1:]))
}

// setArray replaces member i's value with words, laid out as the value it
// replaces was: on one line, or one word per line.
func (d *jsonDoc) setArray(i int, words []string) {
	v := d.entry.value(i)
	raw := stringArray(words)
	if bytes.IndexByte(hujson.Value{Value: v.Value}.Pack(), '\n') >= 0 {
		indent := d.entry.indent
		if lead := *d.entry.lead(i); bytes.IndexByte(lead, '\n') >= 0 {
			indent = lineIndent(lead)
		}
		v.Value = d.e.newValue(raw, indent, true).Value
		return
	}
	nv, _ := hujson.Parse([]byte(oneLineArray(words)))
	v.Value = nv.Value
}

func stringArray(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = jsonString(w)
	}
	return "[" + strings.Join(q, ",") + "]"
}

func (d *jsonDoc) same(a, b []byte) bool {
	var x, y any
	pa, err1 := plainJSON(a)
	pb, err2 := plainJSON(b)
	if err1 != nil || err2 != nil || json.Unmarshal(pa, &x) != nil || json.Unmarshal(pb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func (d *jsonDoc) restore(orig []byte) ([]byte, error) {
	v, err := parseJSONC(orig)
	if err != nil {
		return nil, fmt.Errorf("the recorded entry is not JSON (%v)", err)
	}
	d.member.Value.Value = v.Value
	return d.e.bytes(), nil
}

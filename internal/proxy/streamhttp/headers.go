package streamhttp

import (
	"encoding/base64"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/interceptor-dev/interceptor/internal/proxy"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Revision 2026-07-28 of Streamable HTTP has no session and no initialize:
// every request says its revision in params._meta, and every POST mirrors
// parts of its body into headers (Mcp-Protocol-Version, Mcp-Method,
// Mcp-Name, and Mcp-Param-* for tool arguments the tool's schema marks
// x-mcp-header) so that intermediaries can route without reading the body.
// The proxy computes them from the body it sends, after its own edits: an
// injected token argument marked x-mcp-header is mirrored too.

// message is what the relay needs of one client message (a body that is a
// single JSON-RPC object, not a batch).
type message struct {
	v       gjson.Result
	method  string
	id      gjson.Result // a request's id; absent for a notification
	version string       // params._meta's revision, "" when absent
}

// parseMessage reads body when it is one JSON-RPC object; ok is false for a
// batch or anything else.
func parseMessage(body []byte) (m message, ok bool) {
	if rawjson.DepthExceeds(body, rawjson.MaxDepth) {
		return m, false
	}
	v := gjson.ParseBytes(body)
	if !v.IsObject() {
		return m, false
	}
	m.v = v
	m.method = v.Get("method").Str
	if id := v.Get("id"); id.Type == gjson.String || id.Type == gjson.Number {
		m.id = id
	}
	if pv := v.Get("params._meta." + gjson.Escape(proxy.MetaVersion)); pv.Type == gjson.String {
		m.version = pv.Str
	}
	return m, true
}

// modern reports whether the message speaks 2026-07-28 or later.
func (m message) modern() bool { return proxy.IsModernVersion(m.version) }

// errHeaderValue is a body value that cannot be a header value at all.
var errHeaderValue = errors.New("the request's protocol version is not a valid HTTP header value")

// setHeaders sets the headers m's revision asks for on a POST of it. A
// legacy message gets none here (the session's Mcp-Protocol-Version is set
// by the caller, as before).
func (m message) setHeaders(h http.Header, params *paramHeaders) error {
	if m.version == "" {
		return nil
	}
	// The header must equal the body's value: a server refuses a mismatch.
	if !headerSafe(m.version) {
		return errHeaderValue
	}
	h.Set("Mcp-Protocol-Version", m.version)
	if !m.modern() || m.method == "" {
		return nil
	}
	h.Set("Mcp-Method", headerValue(m.method))
	var name gjson.Result
	switch m.method {
	case "tools/call", "prompts/get":
		name = m.v.Get("params.name")
	case "resources/read":
		name = m.v.Get("params.uri")
	}
	if name.Type == gjson.String {
		h.Set("Mcp-Name", headerValue(name.Str))
	}
	if m.method == "tools/call" && name.Type == gjson.String {
		for _, b := range params.lookup(name.Str) {
			if v, ok := b.value(m.v.Get("params.arguments")); ok {
				h.Set("Mcp-Param-"+b.header, v)
			}
		}
	}
	return nil
}

// headerSafe reports whether s can be sent as a header value as it is:
// printable ASCII, no leading or trailing space or tab, and not itself in
// the base64 form.
func headerSafe(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return !(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
}

// headerValue is s as a header value: as it is when safe, else in the
// base64 form the revision defines (=?base64?…?=, of its UTF-8 bytes).
func headerValue(s string) string {
	if headerSafe(s) {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// binding is one tool argument mirrored into a header: the argument at
// path (a chain of properties) goes as Mcp-Param-<header>.
type binding struct {
	path   []string
	header string
}

// value is the header value of the argument b names in args: strings,
// booleans and integers in JavaScript's safe range; nothing for an absent
// or null argument or any other type.
func (b binding) value(args gjson.Result) (string, bool) {
	v := args
	for _, p := range b.path {
		if !v.IsObject() {
			return "", false
		}
		v = v.Get(gjson.Escape(p))
	}
	switch v.Type {
	case gjson.String:
		return headerValue(v.Str), true
	case gjson.True:
		return "true", true
	case gjson.False:
		return "false", true
	case gjson.Number:
		f := v.Num
		if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53-1 {
			return "", false
		}
		return strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

// paramHeaders are the x-mcp-header bindings of each tool, learned from the
// server's tools/list results (before the proxy edits them: the token
// argument it hides from the client may be one).
type paramHeaders struct {
	mu    sync.Mutex
	tools map[string][]binding
}

func (p *paramHeaders) lookup(tool string) []binding {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tools[tool]
}

// learn takes the bindings of every tool of a tools/list result (msg is the
// response), and returns msg without the tools whose annotations are not
// valid, which an HTTP client must not offer (2026-07-28, "x-mcp-header"),
// with the names of the tools dropped and why.
func (p *paramHeaders) learn(msg []byte) (out []byte, dropped []string) {
	tools := gjson.GetBytes(msg, "result.tools")
	if !tools.IsArray() {
		return msg, nil
	}
	learned := map[string][]binding{}
	keep := []byte{'['}
	tools.ForEach(func(_, tool gjson.Result) bool {
		name := tool.Get("name")
		bs, err := annotations(tool.Get("inputSchema"))
		if err != nil {
			dropped = append(dropped, strconv.Quote(name.String())+": "+err.Error())
			return true
		}
		if name.Type == gjson.String && len(bs) > 0 {
			learned[name.Str] = bs
		}
		if len(keep) > 1 {
			keep = append(keep, ',')
		}
		keep = append(keep, tool.Raw...)
		return true
	})
	p.mu.Lock()
	if p.tools == nil {
		p.tools = map[string][]binding{}
	}
	tools.ForEach(func(_, tool gjson.Result) bool {
		// A tool listed again with no annotation has none now.
		delete(p.tools, tool.Get("name").Str)
		return true
	})
	for name, bs := range learned {
		p.tools[name] = bs
	}
	p.mu.Unlock()
	if len(dropped) == 0 {
		return msg, nil
	}
	edited, err := sjson.SetRawBytes(msg, "result.tools", append(keep, ']'))
	if err != nil {
		return msg, nil
	}
	return edited, dropped
}

// annotations returns the x-mcp-header bindings of a tool's input schema,
// or why they are not valid: a header name that is not an HTTP token, two
// alike but for case, a property that is not a string, integer or boolean,
// or an annotation not reached from the root through properties alone.
func annotations(schema gjson.Result) ([]binding, error) {
	if !schema.IsObject() || !strings.Contains(schema.Raw, "x-mcp-header") {
		return nil, nil
	}
	var out []binding
	seen := map[string]bool{}
	var walk func(v gjson.Result, path []string, reachable, property bool) error
	walk = func(v gjson.Result, path []string, reachable, property bool) error {
		var err error
		if v.IsObject() {
			v.ForEach(func(k, sub gjson.Result) bool {
				switch {
				case k.Str == "x-mcp-header":
					if !reachable || !property {
						err = errors.New("x-mcp-header on a schema not reached through properties alone")
						return false
					}
					name := sub.Str
					if sub.Type != gjson.String || name == "" || !isToken(name) {
						err = errors.New("x-mcp-header is not an HTTP header name")
						return false
					}
					if t := v.Get("type").Str; t != "string" && t != "integer" && t != "boolean" {
						err = errors.New("x-mcp-header on a property of type " + strconv.Quote(t) + " (string, integer or boolean only)")
						return false
					}
					if seen[strings.ToLower(name)] {
						err = errors.New("x-mcp-header " + strconv.Quote(name) + " given twice")
						return false
					}
					seen[strings.ToLower(name)] = true
					out = append(out, binding{path: path, header: name})
				case k.Str == "properties" && sub.IsObject():
					sub.ForEach(func(pk, ps gjson.Result) bool {
						err = walk(ps, append(path[:len(path):len(path)], pk.Str), reachable, true)
						return err == nil
					})
				default:
					err = walk(sub, path, false, false)
				}
				return err == nil
			})
		} else if v.IsArray() {
			v.ForEach(func(_, sub gjson.Result) bool {
				err = walk(sub, path, false, false)
				return err == nil
			})
		}
		return err
	}
	if err := walk(schema, nil, true, false); err != nil {
		return nil, err
	}
	return out, nil
}

// isToken reports whether s is an HTTP field name (RFC 9110 tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return s != ""
}

// idKey is proxy.IDKey, for brevity.
func idKey(id gjson.Result) (string, bool) { return proxy.IDKey(id) }

package install

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/pelletier/go-toml/v2"
	"github.com/tidwall/gjson"
)

// mcpEntry is one configured MCP server, as far as doctor reads it.
type mcpEntry struct {
	name, command string
	args          []string
	timeout       float64 // the client's tool timeout key, in its unit
	hasTimeout    bool
}

// doctorHumanTimeouts checks every configured server that serves human
// tools (interceptor mcp or proxy with --human-tools): a held call waits up
// to its --timeout (proxy: --human-timeout) for a person, and a client that
// gives up on the tool call first loses the answer.
func doctorHumanTimeouts(cr *ClientReport, env Env, c *hooks.Client) {
	spec := c.MCPToolTimeout
	if spec.Key == "" {
		return
	}
	for _, l := range c.MCPServers {
		path := env.resolve(l.Path)
		data, err := os.ReadFile(path)
		if err != nil {
			continue // configuredServers reports what cannot be read
		}
		for _, e := range mcpEntries(data, l, spec.Key) {
			hold, ok := humanHoldTimeout(e.command, e.args)
			if !ok {
				continue
			}
			limit, where := spec.Default, "its default"
			if e.hasTimeout {
				limit, where = time.Duration(e.timeout*float64(spec.Unit)), spec.Key
			}
			if hold >= limit {
				cr.add(Fail, "%s: server %q holds a human tool call up to %s, but %s gives up on a tool call after %s (%s): raise %s or lower the hold timeout (docs/human-tools.md)",
					path, e.name, hold, c.Display, limit, where, spec.Key)
				continue
			}
			cr.add(OK, "%s: server %q holds a human tool call up to %s, within %s's %s (%s)", path, e.name, hold, c.Display, limit, where)
		}
	}
}

// mcpEntries reads the server entries of list l in one file.
func mcpEntries(data []byte, l hooks.ServerList, timeoutKey string) []mcpEntry {
	var out []mcpEntry
	if l.TOML {
		var doc map[string]any
		if toml.Unmarshal(data, &doc) != nil {
			return nil
		}
		list, _ := doc[l.Key].(map[string]any)
		for name, v := range list {
			m, _ := v.(map[string]any)
			e := mcpEntry{name: name}
			e.command, _ = m["command"].(string)
			args, _ := m["args"].([]any)
			for _, a := range args {
				s, _ := a.(string)
				e.args = append(e.args, s)
			}
			switch t := m[timeoutKey].(type) {
			case int64:
				e.timeout, e.hasTimeout = float64(t), true
			case float64:
				e.timeout, e.hasTimeout = t, true
			}
			out = append(out, e)
		}
		return out
	}
	plain := standardJSON(data)
	if plain == nil {
		return nil
	}
	gjson.GetBytes(plain, gjson.Escape(l.Key)).ForEach(func(k, v gjson.Result) bool {
		e := mcpEntry{name: k.String(), command: v.Get("command").Str}
		for _, a := range v.Get("args").Array() {
			e.args = append(e.args, a.Str)
		}
		if t := v.Get(gjson.Escape(timeoutKey)); t.Type == gjson.Number {
			e.timeout, e.hasTimeout = t.Float(), true
		}
		out = append(out, e)
		return true
	})
	return out
}

// humanHoldTimeout is how long a server command holds a human tool call:
// interceptor mcp's --timeout, or proxy's --human-timeout (both default
// approvals.DefaultTimeout); ok is false for a command that serves no
// human tools (or whose timeout does not parse).
func humanHoldTimeout(command string, args []string) (time.Duration, bool) {
	if !strings.HasPrefix(strings.ToLower(filepath.Base(command)), "interceptor") || len(args) == 0 {
		return 0, false
	}
	flag := map[string]string{"mcp": "--timeout", "proxy": "--human-timeout"}[args[0]]
	if flag == "" {
		return 0, false
	}
	hold, human := approvals.DefaultTimeout, false
	for i := 1; i < len(args) && args[i] != "--"; i++ {
		a := args[i]
		if a == "--human-tools" || strings.HasPrefix(a, "--human-tools=") {
			human = true
		}
		v, found := "", false
		switch {
		case a == flag && i+1 < len(args):
			v, found = args[i+1], true
			i++
		case strings.HasPrefix(a, flag+"="):
			v, found = strings.TrimPrefix(a, flag+"="), true
		}
		if found {
			d, err := time.ParseDuration(v)
			if err != nil {
				return 0, false
			}
			hold = d
		}
	}
	return hold, human
}

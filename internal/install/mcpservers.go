package install

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/editdist"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/pelletier/go-toml/v2"
	"github.com/tidwall/gjson"
)

// MCPServer is one MCP server a client has configured, as far as install
// and doctor read it.
type MCPServer struct {
	Name string
	Path string // the file it is configured in
	// Command and Args are how the client starts it.
	Command string
	Args    []string
	// ToolTimeout is the entry's tool-call timeout key
	// (hooks.Client.MCPToolTimeout), in its unit, when HasToolTimeout.
	ToolTimeout    float64
	HasToolTimeout bool
}

// MCPServers lists the MCP servers the client has configured, file by
// file as hooks.Client.MCPServers lists them. A file that cannot be read is
// named in problems.
func MCPServers(env Env, c *hooks.Client) (servers []MCPServer, problems []string) {
	for _, l := range c.MCPServers {
		path := env.Resolve(l.Path)
		data, err := ReadConfig(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, err.Error()) // it names the file
			continue
		}
		found, err := serverEntries(data, l, env.Project, c.MCPToolTimeout.Key)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		for i := range found {
			found[i].Path = path
		}
		servers = append(servers, found...)
	}
	return servers, problems
}

// ConfiguredServers are the names of the MCP servers the client has
// configured (MCPServers), sorted and without repeats.
func ConfiguredServers(env Env, c *hooks.Client) (names, problems []string) {
	servers, problems := MCPServers(env, c)
	for _, s := range servers {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return slices.Compact(names), problems
}

// serverEntries are the entries of the server list l in one file;
// timeoutKey ("": none) is the key of an entry's tool-call timeout.
func serverEntries(data []byte, l hooks.ServerList, project, timeoutKey string) ([]MCPServer, error) {
	var out []MCPServer
	if l.TOML {
		var doc map[string]any
		if err := toml.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		list, _ := doc[l.Key].(map[string]any)
		for name, v := range list {
			m, _ := v.(map[string]any)
			e := MCPServer{Name: name}
			e.Command, _ = m["command"].(string)
			args, _ := m["args"].([]any)
			for _, a := range args {
				s, _ := a.(string)
				e.Args = append(e.Args, s)
			}
			switch t := m[timeoutKey].(type) {
			case int64:
				e.ToolTimeout, e.HasToolTimeout = float64(t), timeoutKey != ""
			case float64:
				e.ToolTimeout, e.HasToolTimeout = t, timeoutKey != ""
			}
			out = append(out, e)
		}
		return out, nil
	}
	plain, err := plainJSON(data)
	if err != nil {
		return nil, err
	}
	var path []string
	for _, part := range strings.Split(l.Key, ".") {
		if part == "{project}" {
			part = project
		}
		path = append(path, gjson.Escape(part))
	}
	gjson.GetBytes(plain, strings.Join(path, ".")).ForEach(func(k, v gjson.Result) bool {
		e := MCPServer{Name: k.String(), Command: v.Get("command").Str}
		for _, a := range v.Get("args").Array() {
			e.Args = append(e.Args, a.Str)
		}
		if cmd := v.Get("command"); cmd.IsArray() { // OpenCode's: the command and its args
			for i, a := range cmd.Array() {
				if i == 0 {
					e.Command = a.Str
				} else {
					e.Args = append(e.Args, a.Str)
				}
			}
		}
		if t := v.Get(gjson.Escape(timeoutKey)); timeoutKey != "" && t.Type == gjson.Number {
			e.ToolTimeout, e.HasToolTimeout = t.Float(), true
		}
		out = append(out, e)
		return true
	})
	return out, nil
}

// NotConfigured says, when server is not among the MCP servers the client
// lists where install can read them, why the hooks for it would never fire,
// with the nearest configured name ("": it is configured). none is set when
// the client lists no server at all there: a server given another way (on
// the command line, by an Agent SDK app) cannot be told from a typo.
func NotConfigured(env Env, c *hooks.Client, server string) (msg string, none bool) {
	servers, problems := MCPServers(env, c)
	if len(problems) > 0 {
		return "", false // the lists that cannot be read are reported as such
	}
	var names, files []string
	for _, s := range servers {
		if s.Name == server {
			return "", false
		}
		names = append(names, s.Name)
		files = append(files, s.Path)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		var where []string
		for _, l := range c.MCPServers {
			where = append(where, env.Resolve(l.Path))
		}
		slices.Sort(where)
		return fmt.Sprintf("%s lists no MCP servers where interceptor can read them (%s), so it cannot check that %q is one: if it is not, the hooks never fire", c.Display, strings.Join(slices.Compact(where), ", "), server), true
	}
	slices.Sort(files)
	msg = fmt.Sprintf("%s has no MCP server named %q (it has %s, in %s): the hooks for %q never fire", c.Display, server, strings.Join(names, ", "), strings.Join(slices.Compact(files), ", "), server)
	if near := Nearest(server, names); near != "" {
		msg += fmt.Sprintf("; did you mean --server %s?", near)
	}
	return msg, false
}

// Nearest is the name of names closest to name, when it is close enough to
// be a typo of it (a few edits, or case only); "" when none is.
func Nearest(name string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		d := editdist.Distance(strings.ToLower(name), strings.ToLower(n))
		if d <= max(2, len(name)/3) && (bestD < 0 || d < bestD) {
			best, bestD = n, d
		}
	}
	return best
}

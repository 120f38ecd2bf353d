package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	// Scope and Project say where in its client's configs it is: "user",
	// "local" (Claude Code's per-project list in ~/.claude.json, Project
	// naming the project) or "project" (a project dir's file).
	Scope, Project string
	// Elsewhere: in the list of a project other than this one (or its
	// parents): the client offers it there only.
	Elsewhere bool
	// Command and Args are how the client starts it.
	Command string
	Args    []string
	// ToolTimeout is the entry's tool-call timeout key
	// (hooks.Client.MCPToolTimeout), in its unit, when HasToolTimeout.
	ToolTimeout    float64
	HasToolTimeout bool
}

// Where says where the server is configured, for a person.
func (s MCPServer) Where() string {
	return placeWhere(s.Scope, s.Project, s.Path)
}

func placeWhere(scope, project, path string) string {
	if scope == "local" {
		return fmt.Sprintf("local scope of project %s, in %s", project, path)
	}
	return fmt.Sprintf("%s scope, in %s", scope, path)
}

// place is one server list in one file: a ServerList resolved against a
// project dir (or, for a list keyed by project, one project's list).
type place struct {
	list    hooks.ServerList
	path    string
	parts   []string // the list's key, part by part, {project} resolved
	scope   string   // user, local, project
	project string   // for local scope
	// elsewhere: another project's list than this one's (or its parents')
	elsewhere bool
}

func (p place) where() string { return placeWhere(p.scope, p.project, p.path) }

// places are every list where the client may keep a server, seen from
// env.Project: its user files; every project's list in a file keyed by
// project (a server there is offered in that project, and the hooks in
// user scope serve every project), the current project's and its parents'
// first; the project files of the project dir and of its parents up to
// the repository's root (Claude Code keys a project by its git root, and
// reads .mcp.json there).
func places(env Env, c *hooks.Client) []place {
	var out []place
	seen := map[string]bool{}
	add := func(p place) {
		k := p.path + "\x00" + strings.Join(p.parts, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	dirs := projectDirs(env.Project)
	for _, l := range c.MCPServers {
		path := env.Resolve(l.Path)
		switch {
		case l.Path.Root.Project:
			for _, d := range dirs {
				p := env
				p.Project = d
				add(place{list: l, path: p.Resolve(l.Path), parts: listPath(l, d), scope: "project"})
			}
		case strings.Contains(l.Key, "{project}"):
			for _, d := range projectKeys(path, l, dirs) {
				add(place{list: l, path: path, parts: listPath(l, d), scope: "local", project: d, elsewhere: !slices.Contains(dirs, d)})
			}
		default:
			add(place{list: l, path: path, parts: listPath(l, ""), scope: "user"})
		}
	}
	return out
}

// projectDirs are dir and its parents up to the nearest that holds .git
// (dir alone when none does).
func projectDirs(dir string) []string {
	if dir == "" {
		return nil
	}
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		out = append(out, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return out
		}
		if filepath.Dir(d) == d {
			return out[:1]
		}
	}
}

// projectKeys are the projects a list keyed by project has in the file at
// path: those of dirs first, then the others, in the file's order.
func projectKeys(path string, l hooks.ServerList, dirs []string) []string {
	out := slices.Clone(dirs)
	data, err := ReadConfig(path)
	if err != nil || l.TOML {
		return out
	}
	plain, err := plainJSON(data)
	if err != nil {
		return out
	}
	before, _, _ := strings.Cut(l.Key, ".{project}")
	var parts []string
	for _, p := range strings.Split(before, ".") {
		parts = append(parts, gjson.Escape(p))
	}
	gjson.GetBytes(plain, strings.Join(parts, ".")).ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(out, k.String()) {
			out = append(out, k.String())
		}
		return true
	})
	return out
}

// MCPServers lists the MCP servers the client has configured, wherever it
// keeps them (places). A file that cannot be read is named in problems.
func MCPServers(env Env, c *hooks.Client) (servers []MCPServer, problems []string) {
	read := map[string]bool{}
	for _, p := range places(env, c) {
		data, err := ReadConfig(p.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			if !read[p.path] {
				problems = append(problems, err.Error()) // it names the file
			}
			read[p.path] = true
			continue
		}
		found, err := serverEntries(data, p.list.TOML, p.parts, c.MCPToolTimeout.Key)
		if err != nil {
			if !read[p.path] {
				problems = append(problems, fmt.Sprintf("%s: %v", p.path, err))
			}
			read[p.path] = true
			continue
		}
		for i := range found {
			found[i].Path, found[i].Scope, found[i].Project, found[i].Elsewhere = p.path, p.scope, p.project, p.elsewhere
		}
		servers = append(servers, found...)
	}
	return servers, problems
}

// FindServer is where the client has server configured (MCPServers).
func FindServer(env Env, c *hooks.Client, server string) []MCPServer {
	servers, _ := MCPServers(env, c)
	return slices.DeleteFunc(servers, func(s MCPServer) bool { return s.Name != server })
}

// FoundWhere says where the client has server configured ("": nowhere
// install can read): each place, and for another project's list that the
// client offers it in that project only.
func FoundWhere(env Env, c *hooks.Client, server string) string {
	var where []string
	for _, s := range FindServer(env, c, server) {
		w := s.Where()
		if s.Elsewhere {
			w += " (" + c.Display + " offers it in that project only)"
		}
		where = append(where, w)
	}
	return strings.Join(slices.Compact(where), "; ")
}

// ConfiguredServers are the names of the MCP servers the client has
// configured (MCPServers) for this project, sorted and without repeats.
func ConfiguredServers(env Env, c *hooks.Client) (names, problems []string) {
	servers, problems := MCPServers(env, c)
	for _, s := range servers {
		if s.Elsewhere {
			continue
		}
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return slices.Compact(names), problems
}

// serverEntries are the entries of the server list at the key parts in
// one file; timeoutKey ("": none) is the key of an entry's tool-call
// timeout.
func serverEntries(data []byte, isTOML bool, parts []string, timeoutKey string) ([]MCPServer, error) {
	var out []MCPServer
	if isTOML {
		var doc map[string]any
		if err := toml.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		list, _ := doc[strings.Join(parts, ".")].(map[string]any)
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
	for _, part := range parts {
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
		for _, p := range places(env, c) {
			where = append(where, p.path)
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

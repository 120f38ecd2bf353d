package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/pelletier/go-toml/v2"
	"github.com/tidwall/gjson"
)

// configuredServers lists the MCP servers the client has configured, in
// every file it reads them from (hooks.Client.MCPServers), sorted and
// without repeats. A file that cannot be read is named in problems.
func configuredServers(env Env, c *hooks.Client) (names, problems []string) {
	for _, l := range c.MCPServers {
		path := env.resolve(l.Path)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		found, err := serverNames(data, l, env.Project)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		names = append(names, found...)
	}
	slices.Sort(names)
	return slices.Compact(names), problems
}

// serverNames are the keys of the server list l in one file.
func serverNames(data []byte, l hooks.ServerList, project string) ([]string, error) {
	var names []string
	if l.TOML {
		var doc map[string]any
		if err := toml.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		list, _ := doc[l.Key].(map[string]any)
		for name := range list {
			names = append(names, name)
		}
		return names, nil
	}
	plain := standardJSON(data)
	if plain == nil {
		return nil, errors.New("not valid JSON")
	}
	var path []string
	for _, part := range strings.Split(l.Key, ".") {
		if part == "{project}" {
			part = project
		}
		path = append(path, gjson.Escape(part))
	}
	gjson.GetBytes(plain, strings.Join(path, ".")).ForEach(func(k, _ gjson.Result) bool {
		names = append(names, k.String())
		return true
	})
	return names, nil
}

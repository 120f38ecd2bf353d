package doctor

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
)

// doctorScripts checks the two hook scripts of one scope (the Scripts
// layout: Cline).
func doctorScripts(cr *ClientReport, env install.Env, c *hooks.Client, scope install.Scope) (ConfigReport, bool) {
	conf := ConfigReport{Scope: scope, Path: filepath.Dir(install.ScriptPath(env, c, scope, c.PreTool)), Hooks: []HookReport{}}
	kinds := map[string][]string{} // server -> kinds found
	type script struct {
		path          string
		servers, argv []string
	}
	var scripts []script
	found := false
	for _, event := range []string{c.PreTool, c.PostTool} {
		path := install.ScriptPath(env, c, scope, event)
		data, err := install.ReadConfig(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			cr.add(Fail, "%v", err)
			continue
		}
		found = true
		cmd, ok := install.ReadScript(c, string(data))
		if !ok {
			cr.add(Info, "%s is a hook of your own, not interceptor's", path)
			continue
		}
		h := commandReport(event, cmd, cmd.String())
		conf.Hooks = append(conf.Hooks, h)
		if !h.BinOK {
			cr.add(Fail, "%s runs %s, which does not exist or is not executable: %s", path, cmd.Bin, binFix(cmd.Bin))
		}
		if runtime.GOOS != "windows" && !binOK(path) {
			cr.add(Fail, "%s is not executable, so %s cannot run it: chmod +x it", path, c.Display)
		}
		for _, srv := range cmd.Servers {
			kinds[srv] = append(kinds[srv], cmd.Sub)
		}
		scripts = append(scripts, script{path, cmd.Servers, cmd.Argv})
	}
	for _, srv := range slices.Sorted(maps.Keys(kinds)) {
		doctorConfigured(cr, env, c, srv)
		doctorServer(cr, c, srv, func() ([]string, []string) { return kinds[srv], []string{conf.Path} })
	}
	if len(scripts) > 0 {
		configured := configuredServers(cr, env, c)
		for _, a := range scripts {
			// A script's own servers are not refused by its options.
			others := slices.DeleteFunc(slices.Clone(configured), func(n string) bool { return slices.Contains(a.servers, n) })
			for _, srv := range a.servers {
				doctorCollisions(cr, c, srv, others, a.argv, a.path)
			}
		}
	}
	return conf, found
}

// doctorOtherScripts warns of the files the client runs beside
// interceptor's scripts, in every dir it reads hooks from.
func doctorOtherScripts(cr *ClientReport, env install.Env, c *hooks.Client) {
	for _, event := range []string{c.PreTool, c.PostTool} {
		for _, other := range install.OtherScripts(env, c, event) {
			cr.add(Warn, "%s", install.AlsoRuns(c, other, event))
		}
	}
}

package install

import (
	"path/filepath"
	"slices"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/tidwall/gjson"
)

// The read side of install: what a client has installed, read the way
// install reads it, for internal/doctor and for the approve route of
// children (FindApproveHooks). Nothing here writes.

// MaxConfig bounds a config file read (hooks, MCP servers, trust records,
// plugin shim, hook script, install's backup): the largest seen are a few
// KiB, and a bigger one is refused rather than held in memory.
const MaxConfig = 8 << 20

// ReadConfig reads a client's config file: only a regular file (a symlink
// is followed) of at most MaxConfig bytes, never blocking on a FIFO
// (privfs.ReadRegular). It is the one reader of install, doctor and the
// children's approve route. A missing file is an error os.IsNotExist
// holds for; every other error names the file.
func ReadConfig(path string) ([]byte, error) {
	data, _, err := privfs.ReadRegular(path, "config", MaxConfig)
	return data, err
}

// HookFile is a file a client reads hooks from.
type HookFile struct {
	Scope Scope
	Path  string
}

// HookFiles are the files a client reads hooks from: install's at user and
// project scope, plus any other project file the client reads
// (hooks.Client.Local).
func HookFiles(env Env, c *hooks.Client) []HookFile {
	out := []HookFile{{User, env.configPath(c, User)}, {Project, env.configPath(c, Project)}}
	if local := env.Resolve(c.Local); local != "" {
		out = append(out, HookFile{Project, local})
	}
	// Run from the home dir, the project's files are the user's.
	if filepath.Clean(out[1].Path) == filepath.Clean(out[0].Path) {
		out = append(out[:1], out[2:]...)
	}
	return out
}

// Hook is one command hook in a client's JSON hook config.
type Hook struct {
	Event   string
	Matcher *string // nil: the hook has none
	Raw     string  // the command as written
	// Command is the command read as an interceptor hook; its Sub is ""
	// for a command that is not one (another hook of the user's).
	Command HookCommand
	// Timeout is the hook's "timeout" field as written (absent: not Exists).
	Timeout gjson.Result

	found foundHook
}

// FindHooks lists every command hook of a client's JSON hook config doc,
// read from path (Layout Grouped or Flat): a file the client would not
// read (hooks.Syntax) is an error naming it.
func FindHooks(path string, doc []byte, c *hooks.Client) ([]Hook, error) {
	found, err := findHooks(path, doc, true, c)
	if err != nil {
		return nil, err
	}
	out := make([]Hook, len(found))
	for i, f := range found {
		out[i] = Hook{Event: f.event, Matcher: f.matcher, Raw: f.raw, Command: f.command, Timeout: f.hook.Get("timeout"), found: f}
	}
	return out, nil
}

// String is the hook's command line, quoted for sh.
func (h HookCommand) String() string { return shellJoin(h.Argv) }

// NotServers are the servers a hook command line refuses (--not-server).
func NotServers(argv []string) []string {
	_, not := splitNotServers(argv)
	return not
}

// Shim is the configuration of a plugin shim install wrote (OpenCode,
// Kilo): the lines it fills in.
type Shim struct {
	Bin         string
	Args        []string // the token servers (--server NAME) and hook options
	ApproveArgs []string // approve's flags; none: approvals off
	// Servers are the token servers, DeliverServers the human tools servers
	// it runs deliver for.
	Servers, DeliverServers []string
}

// ReadShim reads a plugin shim; ok is false for a file that is not the
// shim. A shim whose lines are not in install's form (a hand-configured
// copy of the recipe) reads as no servers.
func ReadShim(doc string) (Shim, bool) {
	c, ok := readShim(doc)
	if !ok {
		return Shim{}, false
	}
	return Shim{Bin: c.bin, Args: c.args, ApproveArgs: c.approveArgs, Servers: c.servers(), DeliverServers: c.deliverServers()}, true
}

// ScriptPath is the hook script install writes for a client of the
// Scripts layout (Cline) at scope, for event (its PreTool or PostTool).
func ScriptPath(env Env, c *hooks.Client, scope Scope, event string) string {
	return scripts{c, event}.path(env, scope)
}

// OtherScripts are the files, in every dir the client runs hook files from
// (hooks.Client.ScriptDirs), that it runs on event beside the scripts
// install writes.
func OtherScripts(env Env, c *hooks.Client, event string) []string {
	var dirs, skip []string
	for _, d := range c.ScriptDirs {
		if dir := env.Resolve(d); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	for _, scope := range []Scope{User, Project} {
		for _, ev := range []string{c.PreTool, c.PostTool} {
			skip = append(skip, ScriptPath(env, c, scope, ev))
		}
	}
	return otherScripts(c, dirs, skip, event)
}

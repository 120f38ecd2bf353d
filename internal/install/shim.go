package install

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/recipes"
)

// shim writes the plugin shim (hooks.Plugin: recipes/opencode/interceptor.ts)
// into the plugin dir, with only its constant lines filled in: BIN, ARGS
// (the --server names and hook options), CAPTURE_ARGS (--redact),
// APPROVE_ARGS (--approve) and DELIVER_ARGS (--deliver: the human tools
// servers). One shim serves every server installed into the same dir. Kilo
// gets the same shim, its comments naming Kilo's files (otherShim).
type shim struct{ c *hooks.Client }

const (
	// shimHeader starts every shim install writes: "OpenCode." or Kilo's.
	shimHeader      = "// interceptor plugin shim for "
	shimBin         = "const BIN: string ="
	shimArgs        = "const ARGS: string[] ="
	shimCaptureArgs = "const CAPTURE_ARGS: string[] ="
	shimApproveArgs = "const APPROVE_ARGS: string[] ="
	shimDeliverArgs = "const DELIVER_ARGS: string[] ="
)

func (o shim) path(env Env, scope Scope) string { return env.configPath(o.c, scope) }

// shimConfig is what the constant lines hold.
type shimConfig struct {
	bin         string
	args        []string // --server NAME pairs first, then the options
	captureArgs []string
	approveArgs []string // approve's flags; non-empty turns approvals on
	deliverArgs []string // --server NAME pairs of the human tools servers, then deliver's options
}

func (c shimConfig) servers() []string { return serverArgs(c.args) }

// deliverServers are the human tools servers the shim runs deliver for.
func (c shimConfig) deliverServers() []string { return serverArgs(c.deliverArgs) }

func serverArgs(args []string) []string {
	var out []string
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--server" {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

func (c shimConfig) options() []string { return optionArgs(c.args) }

// optionArgs are args without their --server pairs.
func optionArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--server" && i+1 < len(args) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// withServers is --server NAME for each of servers, then options; never nil
// (the shim's line reads []).
func withServers(servers, options []string) []string {
	out := []string{}
	for _, s := range servers {
		out = append(out, "--server", s)
	}
	return append(out, options...)
}

func tsString(s string) string { return jsonString(s) }

// oneLineArray is vals as a JSON (and TypeScript) array on one line.
func oneLineArray(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = jsonString(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// shimOf is the client recipes.OpenCodeShim is written for; a client
// whose payloads are that client's (Kilo CLI) gets it with its comments
// naming the client's own files (otherShim).
var shimOf = &hooks.OpenCodeClient

// renderShim fills the constant lines of the shim template, written for
// client.
func renderShim(client *hooks.Client, c shimConfig) (string, error) {
	tmpl := recipes.OpenCodeShim
	if client.Name == shimOf.Name {
		if major, _ := openCodeMajor(); major >= 2 {
			tmpl = recipes.OpenCodeShimV2
		}
	} else {
		var err error
		if tmpl, err = otherShim(client); err != nil {
			return "", err
		}
	}
	lines := strings.SplitAfter(tmpl, "\n")
	found := 0
	for i, l := range lines {
		nl := ""
		if strings.HasSuffix(l, "\n") {
			nl = "\n"
		}
		switch {
		case strings.HasPrefix(l, shimBin):
			lines[i] = shimBin + " " + tsString(c.bin) + nl
		case strings.HasPrefix(l, shimArgs):
			lines[i] = shimArgs + " " + oneLineArray(c.args) + nl
		case strings.HasPrefix(l, shimCaptureArgs):
			lines[i] = shimCaptureArgs + " " + oneLineArray(c.captureArgs) + nl
		case strings.HasPrefix(l, shimApproveArgs):
			lines[i] = shimApproveArgs + " " + oneLineArray(c.approveArgs) + nl
		case strings.HasPrefix(l, shimDeliverArgs):
			lines[i] = shimDeliverArgs + " " + oneLineArray(c.deliverArgs) + nl
		default:
			continue
		}
		found++
	}
	if found != 5 {
		return "", fmt.Errorf("the embedded %s shim lacks its BIN/ARGS/CAPTURE_ARGS/APPROVE_ARGS/DELIVER_ARGS lines", shimOf.Display)
	}
	return strings.Join(lines, ""), nil
}

// otherShim is the shim template with its comments naming client's files
// instead of shimOf's: the header, the config file (opencode.json; each
// client's is named after it) and the plugin dirs. The code, --client
// opencode included, stays: the plugin API and payloads are shimOf's.
func otherShim(client *hooks.Client) (string, error) {
	oc := shimOf
	tmpl := recipes.OpenCodeShim
	for _, r := range []struct{ from, to string }{
		{shimHeader + oc.Display + ".\n", shimHeader + client.Display + ", which is " + oc.Display + " underneath: the same plugin\n// API and payloads, so it runs interceptor with --client " + oc.Name + ".\n"},
		{oc.Name + ".json", client.Name + ".json"},
		{oc.Project.Rel, client.Project.Rel},
		{"~/.config/" + oc.User.Rel, "~/.config/" + client.User.Rel},
	} {
		// Only comment lines: code keeps OpenCode's names.
		n := 0
		lines := strings.SplitAfter(tmpl, "\n")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "//") && strings.Contains(l, r.from) {
				lines[i] = strings.ReplaceAll(l, r.from, r.to)
				n++
			}
		}
		if n == 0 {
			return "", fmt.Errorf("the embedded %s shim has no comment naming %q to write %s's name into", oc.Display, r.from, client.Display)
		}
		tmpl = strings.Join(lines, "")
	}
	return tmpl, nil
}

// readShim reads the constants of a shim install wrote. ok is false for a
// file that is not the shim; a shim whose lines are not in install's form
// (a hand-configured copy of the recipe) reads as no servers.
func readShim(doc string) (c shimConfig, ok bool) {
	if !strings.HasPrefix(doc, shimHeader) {
		return c, false
	}
	for _, l := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(l, shimBin):
			_ = json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(l, shimBin))), &c.bin)
		case strings.HasPrefix(l, shimArgs):
			_ = json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(l, shimArgs))), &c.args)
		case strings.HasPrefix(l, shimCaptureArgs):
			_ = json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(l, shimCaptureArgs))), &c.captureArgs)
		case strings.HasPrefix(l, shimApproveArgs):
			_ = json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(l, shimApproveArgs))), &c.approveArgs)
		case strings.HasPrefix(l, shimDeliverArgs):
			_ = json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(l, shimDeliverArgs))), &c.deliverArgs)
		}
	}
	return c, true
}

func (oc shim) merge(path string, doc []byte, o Options) ([]byte, []string, error) {
	if o.Deliver {
		return oc.mergeDeliver(path, doc, o)
	}
	var notes []string
	var servers, notServers []string
	approveArgs, deliverArgs := []string{}, []string{}
	given := o.Hook
	given.NotServers = nil
	if doc != nil {
		old, ok := readShim(string(doc))
		if !ok {
			return nil, nil, fmt.Errorf("%s exists and is not the interceptor shim; move it away or pick another scope", path)
		}
		servers = old.servers()
		if old.approveArgs != nil {
			approveArgs = old.approveArgs
		}
		if old.deliverArgs != nil {
			deliverArgs = old.deliverArgs
		}
		var options []string
		options, notServers = splitNotServers(old.options())
		if len(servers) > 0 && !slices.Contains(servers, o.Server) {
			if !slices.Equal(options, given.args()) || !slices.Equal(old.captureArgs, given.captureArgs()) {
				notes = append(notes, fmt.Sprintf("the shim serves %s too; the hook options given now apply to every server it serves", strings.Join(servers, ", ")))
			}
		}
	}
	// One ARGS serves every server.
	servers, notServers, collide := sharedServers(servers, o.Server, notServers, o.Hook.NotServers)
	given.NotServers = notServers
	if collide {
		notes = append(notes, "the shim serves servers whose tool names collide under "+oc.c.Display+"; a call to one may get the other's token: install them in different scopes")
	}
	c := shimConfig{bin: o.hookBin()}
	for _, s := range servers {
		c.args = append(c.args, "--server", s)
	}
	c.args = append(c.args, given.args()...)
	c.captureArgs = append([]string{}, given.captureArgs()...)
	if c.args == nil {
		c.args = []string{}
	}
	c.approveArgs = approveArgs
	if o.Approve.On {
		// Everything after "approve --client opencode": the shim adds those.
		argv := approveArgv(o, oc.c.Name, oc.approveMatch(o.Server))
		c.approveArgs = argv[4:]
		if len(approveArgs) > 0 && !slices.Equal(approveArgs, c.approveArgs) {
			notes = append(notes, "the shim's approve options (APPROVE_ARGS) are shared by every server it serves; "+didVerb(o.DryRun, "replaced them", "would replace them"))
		}
	} else if len(approveArgs) > 0 {
		notes = append(notes, "the shim runs approve (APPROVE_ARGS); it stays: uninstall to remove it")
	}
	c.deliverArgs = deliverArgs
	out, err := renderShim(oc.c, c)
	if err != nil {
		return nil, nil, err
	}
	if ShimAPI(out) == 2 {
		_, v := openCodeMajor()
		d, cfg := oc.c.Display, oc.c.Name+".json"
		notes = append(notes, d+" "+v+" is 2.x: wrote the V2 plugin (Plugin API v2), written from "+d+" 2's sources and not run against a real 2.x; "+
			"set \"codemode\": false on the server in "+cfg+" (mcp.servers."+o.Server+"), or its calls reach plugins as one \"execute\" tool; "+
			"if `"+oc.c.Name+" plugin list` does not show interceptor, add this file to \"plugins\" in "+cfg)
	}
	return []byte(out), notes, nil
}

// mergeDeliver adds a human tools server to the shim's DELIVER_ARGS (install
// --deliver): the shim then runs deliver when a user message starts a turn
// and after that server's tools. The token servers' lines stay as they are.
func (oc shim) mergeDeliver(path string, doc []byte, o Options) ([]byte, []string, error) {
	if major, v := openCodeMajor(); major >= 2 && oc.c.Name == shimOf.Name {
		return nil, nil, fmt.Errorf("--deliver is not supported for %s %s yet: its V2 plugin API has no chat.message hook, and no other way to add to a turn's prompt was verified", oc.c.Display, v)
	}
	var notes []string
	c := shimConfig{args: []string{}, captureArgs: []string{}, approveArgs: []string{}}
	if doc != nil {
		old, ok := readShim(string(doc))
		if !ok {
			return nil, nil, fmt.Errorf("%s exists and is not the interceptor shim; move it away or pick another scope", path)
		}
		c = old
		for _, p := range []*[]string{&c.args, &c.captureArgs, &c.approveArgs} {
			if *p == nil {
				*p = []string{}
			}
		}
	}
	c.bin = o.hookBin()
	servers, options := c.deliverServers(), stateDirArgs(o.Hook)
	if old := optionArgs(c.deliverArgs); len(servers) > 0 && !slices.Contains(servers, o.Server) && !slices.Equal(old, options) {
		notes = append(notes, fmt.Sprintf("the shim delivers for %s too; the state dir given now applies to every human tools server it serves", strings.Join(servers, ", ")))
	}
	if !slices.Contains(servers, o.Server) {
		servers = append(servers, o.Server)
	}
	c.deliverArgs = withServers(servers, options)
	out, err := renderShim(oc.c, c)
	if err != nil {
		return nil, nil, err
	}
	return []byte(out), notes, nil
}

// splitNotServers takes the --not-server pairs out of hook options.
func splitNotServers(args []string) (rest, not []string) {
	for i := 0; i < len(args); i++ {
		if args[i] == "--not-server" && i+1 < len(args) {
			// As the hook reads it (carry.Args quotes a name with a comma).
			if names, err := carry.ReadList(args[i+1]); err == nil {
				not = append(not, names...)
			} else {
				not = append(not, args[i+1])
			}
			i++
			continue
		}
		rest = append(rest, args[i])
	}
	return rest, not
}

func (oc shim) installed(doc []byte) bool {
	c, ok := readShim(string(doc))
	return ok && len(c.servers())+len(c.deliverServers()) > 0
}

func (oc shim) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	old, ok := readShim(string(doc))
	if !ok {
		return nil, fmt.Errorf("%s is not the interceptor shim; leaving it alone", path)
	}
	servers, delivers := old.servers(), old.deliverServers()
	if !slices.Contains(servers, server) && !slices.Contains(delivers, server) {
		return doc, nil
	}
	isServer := func(s string) bool { return s == server }
	rest := slices.DeleteFunc(slices.Clone(servers), isServer)
	restDeliver := slices.DeleteFunc(slices.Clone(delivers), isServer)
	if len(rest) == 0 && len(restDeliver) == 0 {
		if created {
			return nil, nil
		}
		// A shim was there before install (a copy of the recipe): put it
		// back. A backup that serves servers is install's own earlier
		// output (taken when a second server joined), not the user's.
		if b, err := readFileIfExists(path + BackupSuffix); err == nil && b != nil {
			if bc, ok := readShim(string(b)); !ok || len(bc.servers())+len(bc.deliverServers()) == 0 {
				return b, nil
			}
		}
		return nil, nil
	}
	c := shimConfig{bin: old.bin, args: []string{}, captureArgs: []string{}, approveArgs: []string{}, deliverArgs: []string{}}
	if len(rest) > 0 {
		// The token servers' options and approvals go with the last of them.
		c.args = withServers(rest, old.options())
		if old.captureArgs != nil {
			c.captureArgs = old.captureArgs
		}
		if old.approveArgs != nil {
			c.approveArgs = old.approveArgs
		}
	}
	if len(restDeliver) > 0 {
		c.deliverArgs = withServers(restDeliver, optionArgs(old.deliverArgs))
	}
	out, err := renderShim(oc.c, c)
	return []byte(out), err
}

// approveMatch is approve's default --match in the shim, which runs
// approve for every tool: the server's tools, as OpenCode spells them.
func (oc shim) approveMatch(server string) string {
	p, _ := oc.c.ToolPrefix(server)
	return "^" + regexp.QuoteMeta(p)
}

package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/recipes"
)

// opencode writes OpenCode's plugin shim (recipes/opencode/interceptor.ts)
// into the plugin dir, with only its constant lines filled in: BIN, ARGS
// (the --server names and hook options) and CAPTURE_ARGS (--redact). One
// shim serves every server installed into the same dir.
type opencode struct{ c *hooks.Client }

const (
	shimHeader      = "// interceptor plugin shim for OpenCode."
	shimBin         = "const BIN: string ="
	shimArgs        = "const ARGS: string[] ="
	shimCaptureArgs = "const CAPTURE_ARGS: string[] ="
	shimApproveArgs = "const APPROVE_ARGS: string[] ="
)

func (o opencode) path(env Env, scope Scope) string { return env.configPath(o.c, scope) }

// shimConfig is what the constant lines hold.
type shimConfig struct {
	bin         string
	args        []string // --server NAME pairs first, then the options
	captureArgs []string
	approveArgs []string // approve's flags; non-empty turns approvals on
}

func (c shimConfig) servers() []string {
	var out []string
	for i := 0; i+1 < len(c.args); i++ {
		if c.args[i] == "--server" {
			out = append(out, c.args[i+1])
			i++
		}
	}
	return out
}

func (c shimConfig) options() []string {
	var out []string
	for i := 0; i < len(c.args); i++ {
		if c.args[i] == "--server" && i+1 < len(c.args) {
			i++
			continue
		}
		out = append(out, c.args[i])
	}
	return out
}

func tsString(s string) string { return jsonString(s) }

func tsArray(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = jsonString(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// renderShim fills the constant lines of the shim template.
func renderShim(c shimConfig) (string, error) {
	lines := strings.SplitAfter(recipes.OpenCodeShim, "\n")
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
			lines[i] = shimArgs + " " + tsArray(c.args) + nl
		case strings.HasPrefix(l, shimCaptureArgs):
			lines[i] = shimCaptureArgs + " " + tsArray(c.captureArgs) + nl
		case strings.HasPrefix(l, shimApproveArgs):
			lines[i] = shimApproveArgs + " " + tsArray(c.approveArgs) + nl
		default:
			continue
		}
		found++
	}
	if found != 4 {
		return "", errors.New("the embedded OpenCode shim lacks its BIN/ARGS/CAPTURE_ARGS/APPROVE_ARGS lines")
	}
	return strings.Join(lines, ""), nil
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
		}
	}
	return c, true
}

func (oc opencode) merge(path string, doc []byte, o Options) ([]byte, []string, error) {
	var notes []string
	var servers, notServers []string
	approveArgs := []string{}
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
		var options []string
		options, notServers = splitNotServers(old.options())
		if len(servers) > 0 && !slices.Contains(servers, o.Server) {
			if !slices.Equal(options, given.args()) || slices.Contains(old.captureArgs, "--redact") != o.Hook.Redact {
				notes = append(notes, fmt.Sprintf("the shim serves %s too; the hook options given now apply to every server it serves", strings.Join(servers, ", ")))
			}
		}
	}
	if !slices.Contains(servers, o.Server) {
		servers = append(servers, o.Server)
	}
	// One ARGS serves every server: it refuses the names of every server
	// that collides with one of them, but not those it serves.
	for _, n := range o.Hook.NotServers {
		if !slices.Contains(notServers, n) {
			notServers = append(notServers, n)
		}
	}
	given.NotServers = slices.DeleteFunc(notServers, func(n string) bool { return slices.Contains(servers, n) })
	if len(given.NotServers) < len(notServers) {
		notes = append(notes, "the shim serves servers whose tool names collide under OpenCode; a call to one may get the other's token: install them in different scopes")
	}
	c := shimConfig{bin: o.Bin}
	for _, s := range servers {
		c.args = append(c.args, "--server", s)
	}
	c.args = append(c.args, given.args()...)
	c.captureArgs = []string{}
	if o.Hook.Redact {
		c.captureArgs = []string{"--redact"}
	}
	if c.args == nil {
		c.args = []string{}
	}
	c.approveArgs = approveArgs
	if o.Approve.On {
		// Everything after "approve --client opencode": the shim adds those.
		argv := approveArgv(o, oc.c.Name, oc.approveMatch(o.Server))
		c.approveArgs = argv[4:]
		if len(approveArgs) > 0 && !slices.Equal(approveArgs, c.approveArgs) {
			notes = append(notes, "the shim's approve options (APPROVE_ARGS) are shared by every server it serves; replaced them")
		}
	} else if len(approveArgs) > 0 {
		notes = append(notes, "the shim runs approve (APPROVE_ARGS); it stays: uninstall to remove it")
	}
	out, err := renderShim(c)
	if err != nil {
		return nil, nil, err
	}
	return []byte(out), notes, nil
}

// splitNotServers takes the --not-server pairs out of hook options.
func splitNotServers(args []string) (rest, not []string) {
	for i := 0; i < len(args); i++ {
		if args[i] == "--not-server" && i+1 < len(args) {
			not = append(not, args[i+1])
			i++
			continue
		}
		rest = append(rest, args[i])
	}
	return rest, not
}

func (opencode) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	old, ok := readShim(string(doc))
	if !ok {
		return nil, fmt.Errorf("%s is not the interceptor shim; leaving it alone", path)
	}
	servers := old.servers()
	if !slices.Contains(servers, server) {
		return doc, nil
	}
	rest := slices.DeleteFunc(slices.Clone(servers), func(s string) bool { return s == server })
	if len(rest) == 0 {
		if created {
			return nil, nil
		}
		// A shim was there before install (a copy of the recipe): put it back.
		if b, err := readFileIfExists(path + BackupSuffix); err == nil && b != nil {
			return b, nil
		}
		return nil, nil
	}
	c := shimConfig{bin: old.bin, captureArgs: old.captureArgs, approveArgs: old.approveArgs}
	for _, s := range rest {
		c.args = append(c.args, "--server", s)
	}
	c.args = append(c.args, old.options()...)
	if c.captureArgs == nil {
		c.captureArgs = []string{}
	}
	if c.approveArgs == nil {
		c.approveArgs = []string{}
	}
	out, err := renderShim(c)
	return []byte(out), err
}

// approveMatch is approve's default --match in the shim, which runs
// approve for every tool: the server's tools, as OpenCode spells them.
func (oc opencode) approveMatch(server string) string {
	p, _ := hooks.ToolPrefix(oc.c.Name, server)
	return "^" + regexp.QuoteMeta(p)
}

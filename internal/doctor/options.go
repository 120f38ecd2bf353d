package doctor

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// carried returns the options of a hook's argv that inject and capture
// must agree on (carry.Option.Agree: capture stores what inject reads), as
// written, in order.
func carried(argv []string) []string {
	if len(argv) < 2 {
		return nil
	}
	return carry.Given(argv[2:], func(o *carry.Option) bool { return o.Agree })
}

// describeCarried says in words what a hook with these options carries.
func describeCarried(opts []string) string {
	if len(opts) == 0 {
		return "the default session_token (no hook options)"
	}
	return strings.Join(opts, " ")
}

// doctorCarried reports what a server's hooks carry, fails when its inject
// and capture hooks were given different options (capture would store what
// inject never reads, silently), and checks a --handles file the hooks
// read.
func doctorCarried(cr *ClientReport, server string, cmds map[string][][]string) {
	injects, captures := cmds["inject"], cmds["capture"]
	if len(injects) == 0 && len(captures) == 0 {
		return
	}
	var first []string
	for _, argv := range append(slices.Clone(injects), captures...) {
		first = carried(argv)
		break
	}
	for _, argv := range append(slices.Clone(injects), captures...) {
		if got := carried(argv); !slices.Equal(got, first) {
			cr.add(Fail, "server %q: inject and capture carry different options (%s / %s): capture would store what inject does not read; reinstall with one set of options", server, describeCarried(first), describeCarried(got))
			return
		}
	}
	cr.add(Info, "server %q: hooks carry %s", server, describeCarried(first))
	doctorHandlesFile(cr, server, first)
}

// doctorHandlesFile checks the --handles file among opts, if any.
func doctorHandlesFile(cr *ClientReport, server string, opts []string) {
	file := flagValue(opts, "--handles")
	if file == "" {
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		cr.add(Fail, "server %q: the hooks read --handles %s: %v; reinstall with the file: interceptor install %s --server %s --handles FILE", server, file, err, cr.Client, server)
		return
	}
	specs, err := token.ParseHandles(data, file)
	if err != nil {
		cr.add(Fail, "server %q: %v; fix it, then reinstall: interceptor install %s --server %s --handles FILE", server, err, cr.Client, server)
		return
	}
	var names []string
	for _, s := range specs {
		if !s.Declared() {
			cr.add(Fail, "server %q: handle %q in %s names no tools that take it (\"to\"): hooks cannot tell", server, s.Name, file)
		}
		names = append(names, fmt.Sprintf("%s (%s, %s, into %s)", s.Name, s.Kind, s.Lifetime, s.Arg))
	}
	cr.add(OK, "server %q: handles %s", server, strings.Join(names, ", "))
}

// shimCarried is doctorCarried for the plugin shim, whose one ARGS serves
// inject and capture alike.
func shimCarried(cr *ClientReport, shim install.Shim) {
	for _, s := range shim.Servers {
		doctorCarried(cr, s, map[string][][]string{"inject": {append([]string{shim.Bin, "inject"}, shim.Args...)}})
	}
}

//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
)

// Desktop Commander 0.2.52 for real (issue 20): Claude Code and Codex,
// through the hooks (`interceptor install <client> --server
// desktop-commander --handles examples/servers/desktop-commander/handles.json`)
// and through the proxy (`interceptor proxy --server-name desktop-commander
// --handles … -- node …/dist/index.js`), play fakemodel.DCScript: two
// processes, calls with no pid (the latest) and with the first's pid by
// value (the first), read_file (no handle), both kinds of search with no
// sessionId. Checked through the server's answers as the model read them,
// and through interceptor's debug log (hooks).

const dcServer = "desktop-commander"

// dcHandles is the handles file the issue names.
func dcHandles() string {
	return filepath.Join(bins.repo, "examples", "servers", "desktop-commander", "handles.json")
}

func runDC(t *testing.T, hc *handlesClient, viaProxy bool) {
	entry := dcEntry(t)
	hs := newHandlesScenario(t, hc, viaProxy, dcServer, []string{"--handles", dcHandles()}, nil,
		func(sc *scenario) (string, []string) { return "node", []string{entry} })
	dir := hs.proj
	hs.script.Script = fakemodel.DCScript{Server: dcServer, Dir: dir}
	hs.write(filepath.Join(dir, fakemodel.DCNeedleFile), fakemodel.DCNeedle+"\n")

	const label = "E2E-RUN-0"
	took := hs.run(label, "Use the desktop commander tools as scripted. "+label)
	t.Logf("%s: the run took %s", hc.name, took.Round(100*time.Millisecond))
	seen := hs.script.seen(label)
	for i, r := range seen {
		t.Logf("result %d as the model read it: %q", i, tail(r, 8))
	}
	for _, p := range checkDC(seen) {
		t.Errorf("%s", p)
	}
	if !viaProxy {
		for _, p := range checkDCDebugLog(hs.debugLog) {
			t.Errorf("debug log: %s", p)
		}
	} else if b, err := os.ReadFile(hs.proxyLog); err == nil && len(b) > 0 {
		t.Logf("proxy log:\n%s", b)
	}
	if t.Failed() {
		hs.dumpRuns("")
	}
}

var (
	dcInteracted = regexp.MustCompile(`Input executed in process (\d+)`)
	dcTerminated = regexp.MustCompile(`termination of session (\d+)`)
	dcSearch     = regexp.MustCompile(`Started (file|content) search session: (\S+|\[sessionId [^\]]*\])`)
)

// checkDC checks the results of fakemodel.DCScript as the model read them:
// each call reached the process or search session it was meant for. It
// returns one line per problem.
func checkDC(seen []string) []string {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	if len(seen) != fakemodel.DCToolCalls {
		return []string{fmt.Sprintf("the model read %d tool results, want %d: the conversation did not run", len(seen), fakemodel.DCToolCalls)}
	}
	p1, ok1 := fakemodel.DCPID(seen[fakemodel.DCStartFirst])
	p2, ok2 := fakemodel.DCPID(seen[fakemodel.DCStartSecond])
	if !ok1 || !ok2 {
		return []string{fmt.Sprintf("start_process results show no pid: %q, %q", seen[0], seen[1])}
	}
	if _, num := p1.(int); !num {
		bad("the model read the first pid as %v: a number handle is shown as it is", p1)
	}
	pid := func(p any) string { return fmt.Sprint(p) }
	has := func(turn int, what, want string) {
		if !strings.Contains(seen[turn], want) {
			bad("%s: the result lacks %q: %q", what, want, tail(seen[turn], 6))
		}
	}
	hasNot := func(turn int, what, unwanted string) {
		if strings.Contains(seen[turn], unwanted) {
			bad("%s: the result has %q: %q", what, unwanted, tail(seen[turn], 6))
		}
	}
	has(fakemodel.DCReadLatest, "read_process_output with no pid (the latest)", fakemodel.DCSecond+" ready")
	hasNot(fakemodel.DCReadLatest, "read_process_output with no pid (the latest)", fakemodel.DCFirst)
	has(fakemodel.DCReadFirst, "read_process_output naming the first pid", fakemodel.DCFirst+" ready")
	hasNot(fakemodel.DCReadFirst, "read_process_output naming the first pid", fakemodel.DCSecond)
	has(fakemodel.DCInteractLatest, "interact_with_process with no pid", "Input executed in process "+pid(p2))
	has(fakemodel.DCInteractLatest, "interact_with_process with no pid", fakemodel.DCSecond+" got ping-latest")
	has(fakemodel.DCInteractFirst, "interact_with_process naming the first pid", "Input executed in process "+pid(p1))
	has(fakemodel.DCInteractFirst, "interact_with_process naming the first pid", fakemodel.DCFirst+" got ping-first")
	has(fakemodel.DCTerminateLatest, "force_terminate with no pid", "termination of session "+pid(p2))
	has(fakemodel.DCTerminateFirst, "force_terminate naming the first pid", "termination of session "+pid(p1))
	has(fakemodel.DCReadFile, "read_file", fakemodel.DCNeedle)
	hasNot(fakemodel.DCReadFile, "read_file", "You sent parameters not supported")
	for _, s := range []struct {
		start, more int
		kind, found string
	}{
		{fakemodel.DCSearchFiles, fakemodel.DCMoreFiles, "file", fakemodel.DCNeedleFile},
		{fakemodel.DCSearchContent, fakemodel.DCMoreContent, "content", fakemodel.DCNeedle},
	} {
		m := dcSearch.FindStringSubmatch(seen[s.start])
		if m == nil || m[1] != s.kind {
			bad("start_search (%s): no %q in %q", s.kind, "Started "+s.kind+" search session: …", tail(seen[s.start], 6))
			continue
		}
		has(s.more, "get_more_search_results with no sessionId after the "+s.kind+" search", "Search session: "+m[2])
		if strings.Contains(seen[s.more], "COMPLETED") {
			has(s.more, "get_more_search_results after the "+s.kind+" search", s.found)
		}
		if s.kind == "content" {
			has(fakemodel.DCStopSearch, "stop_search with no sessionId", "Search session "+m[2])
		}
	}
	for _, turn := range []int{fakemodel.DCReadLatest, fakemodel.DCReadFirst, fakemodel.DCInteractLatest, fakemodel.DCInteractFirst,
		fakemodel.DCTerminateLatest, fakemodel.DCMoreFiles, fakemodel.DCMoreContent, fakemodel.DCStopSearch, fakemodel.DCTerminateFirst} {
		for _, unwanted := range []string{"No session found", "Invalid arguments", "invalid_type", "not found"} {
			hasNot(turn, fmt.Sprintf("call %d", turn), unwanted)
		}
	}
	return probs
}

// checkDCDebugLog checks what the hooks did, by their debug log (values
// masked): the pid and sessionId injected into the calls that name none, a
// named pid kept, read_file and start_* given nothing.
func checkDCDebugLog(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return []string{err.Error()}
	}
	var probs []string
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(string(b), -1)) }
	for _, c := range []struct {
		re   string
		want int
	}{
		{`inject .*desktop-commander/read_process_output .*: injected pid .+ into read_process_output`, 1},
		{`inject .*desktop-commander/interact_with_process .*: injected pid .+ into interact_with_process`, 1},
		{`inject .*desktop-commander/force_terminate .*: injected pid .+ into force_terminate`, 1},
		{`inject .*pid names a held pid`, 3},
		{`inject .*desktop-commander/get_more_search_results .*: injected sessionId .+ into get_more_search_results`, 2},
		{`inject .*desktop-commander/stop_search .*: injected sessionId .+ into stop_search`, 1},
		{`capture .*desktop-commander/start_process .*: captured 1 pid value`, 2},
		{`capture .*desktop-commander/start_search .*: captured 1 sessionId value`, 2},
		{`inject .*desktop-commander/read_file .*injected`, 0},
		{`inject .*desktop-commander/start_\w+ .*injected`, 0},
	} {
		if got := count(c.re); got != c.want {
			probs = append(probs, fmt.Sprintf("%d line(s) match %s, want %d", got, c.re, c.want))
		}
	}
	return probs
}

func TestHandlesDesktopCommanderClaudeCode(t *testing.T) {
	parallel(t)
	t.Run("hooks", func(t *testing.T) { parallel(t); runDC(t, handlesClaude, false) })
	t.Run("proxy", func(t *testing.T) { parallel(t); runDC(t, handlesClaude, true) })
}

func TestHandlesDesktopCommanderCodex(t *testing.T) {
	parallel(t)
	t.Run("hooks", func(t *testing.T) { parallel(t); runDC(t, handlesCodex, false) })
	t.Run("proxy", func(t *testing.T) { parallel(t); runDC(t, handlesCodex, true) })
}

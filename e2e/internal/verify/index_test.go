package verify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/idxserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// indexInjector decides the session_index of a call that names none, as a
// client's hooks would; it sees each result's _meta.session_index after
// the call (tool is the tool called).
type indexInjector interface {
	inject(tool string) (string, bool)
	saw(tool, idx string, isError bool)
}

// ideal is what interceptor should do: the index a start_session minted,
// none after a start_session that minted none, never another tool's.
type ideal struct{ held string }

func (i *ideal) inject(tool string) (string, bool) { return i.held, i.held != "" }
func (i *ideal) saw(tool, idx string, isError bool) {
	if tool == "start_session" {
		i.held = idx
	}
}

// latest injects the index of the latest result (a rotating token's
// rule): a child's, once the model named it.
type latest struct{ held string }

func (l *latest) inject(string) (string, bool) { return l.held, l.held != "" }
func (l *latest) saw(_, idx string, _ bool) {
	if idx != "" {
		l.held = idx
	}
}

// keepOld falls back to the index held before a failed restart.
type keepOld struct{ ideal }

func (k *keepOld) saw(tool, idx string, isError bool) {
	if idx != "" || !isError {
		k.ideal.saw(tool, idx, isError)
	}
}

// playIndex plays fakemodel.IndexScript against a new instance of the
// index server logging to log, with inj deciding injected indexes.
func playIndex(t *testing.T, log, failFile string, inj indexInjector) {
	t.Helper()
	s, err := idxserver.New(idxserver.Config{LogPath: log, FailRestartFile: failFile})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCPServer().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var tools []fakemodel.Tool
	for _, name := range []string{"start_session", "get_activity", "next_activity", "dispatch_child"} {
		tools = append(tools, fakemodel.Tool{Name: "mcp__wf__" + name})
	}
	script := fakemodel.IndexScript{Server: "wf"}
	var conv fakemodel.Conversation
	var raw []string
	for turn := 0; turn < 30; turn++ {
		act, main := script.Plan(conv, tools)
		if !main || !act.IsTool() {
			return
		}
		tool := strings.TrimPrefix(act.Tool.Name, "mcp__wf__")
		if _, named := act.Args[idxserver.Arg]; !named && tool != "start_session" {
			if idx, ok := inj.inject(tool); ok {
				act.Args[idxserver.Arg] = idx
			}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: act.Args})
		if err != nil {
			t.Fatal(err)
		}
		idx, _ := res.Meta[idxserver.Arg].(string)
		inj.saw(tool, idx, res.IsError)
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		raw = append(raw, text.String())
		blocks, _ := json.Marshal(raw)
		conv.Body = blocks
		conv.Results = append(conv.Results, flatten(text.String()))
	}
	t.Fatal("the script did not end after 30 turns")
}

// flatten is a result's text as fakemodel hands it to a script: a JSON
// object's string values, one per line, or the text itself.
func flatten(text string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(text), &obj) != nil {
		return text
	}
	var lines []string
	for _, v := range obj {
		if s, ok := v.(string); ok {
			lines = append(lines, s)
		}
	}
	return strings.Join(lines, "\n")
}

// playLoop plays runs conversations, each against a new instance, the
// restarts of the runs in failing designated to fail.
func playLoop(t *testing.T, runs int, failing map[int]bool, inj func() indexInjector) []IndexRun {
	dir := t.TempDir()
	log, failFile := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "fail")
	for n := range runs {
		os.Remove(failFile)
		if failing[n] {
			if err := os.WriteFile(failFile, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		playIndex(t, log, failFile, inj())
	}
	recs, err := idxserver.ReadLog(log)
	if err != nil {
		t.Fatal(err)
	}
	return IndexRuns(recs)
}

var loopFailing = map[int]bool{1: true, 2: true}

func TestIndexCheckPass(t *testing.T) {
	runs := playLoop(t, 4, loopFailing, func() indexInjector { return &ideal{} })
	if len(runs) != 4 {
		t.Fatalf("%d runs in the log, want 4", len(runs))
	}
	if probs := IndexCheck(runs, loopFailing, false); len(probs) > 0 {
		t.Errorf("ideal injection reported:\n%s", strings.Join(probs, "\n"))
	}
	// The proxy answers the call after a failed restart itself: the server
	// must not have seen it.
	if probs := IndexCheck(runs, loopFailing, true); len(probs) == 0 {
		t.Error("a call after a failed restart that reached the server passed as a proxy run")
	}
}

func TestIndexCheckFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		inj  func() indexInjector
		want string
	}{
		{"child index sticks", func() indexInjector { return &latest{} }, `[after-child] with `},
		{"stale after a failed restart", func() indexInjector { return &keepOld{} }, "[after-failed-restart] with"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs := playLoop(t, 3, loopFailing, c.inj)
			wantProblem(t, IndexCheck(runs, loopFailing, false), c.want)
		})
	}
	t.Run("an earlier run's index", func(t *testing.T) {
		var last string
		runs := playLoop(t, 2, nil, func() indexInjector {
			return &stale{prev: last, last: &last}
		})
		wantProblem(t, IndexCheck(runs, nil, false), "a stale value")
	})
	t.Run("failures not designated", func(t *testing.T) {
		runs := playLoop(t, 2, nil, func() indexInjector { return &ideal{} })
		wantProblem(t, IndexCheck(runs, map[int]bool{1: true}, false), "designated to fail")
	})
}

// stale injects, into the first call after a start, the index the
// previous run started last (prev); it notes its own in last.
type stale struct {
	ideal
	prev  string
	last  *string
	calls int
}

func (s *stale) inject(tool string) (string, bool) {
	s.calls++
	if s.calls == 1 && s.prev != "" {
		return s.prev, true
	}
	return s.ideal.inject(tool)
}

func (s *stale) saw(tool, idx string, isError bool) {
	s.ideal.saw(tool, idx, isError)
	if tool == "start_session" && idx != "" {
		*s.last = idx
	}
}

func TestIndexShares(t *testing.T) {
	runs := playLoop(t, 3, nil, func() indexInjector { return &ideal{} })
	noDigit, total := 0, 0
	for _, r := range runs {
		for _, c := range r.Calls {
			if c.Issued == "" {
				continue
			}
			total++
			if !strings.ContainsAny(c.Issued, "234567") {
				noDigit++
			}
			if len(c.Issued) != 6 || strings.Trim(c.Issued, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
				t.Errorf("index %q is not 6 characters of base32", c.Issued)
			}
		}
	}
	if total != 9 || noDigit != 6 {
		t.Errorf("%d of %d indexes have no digit, want 6 of 9", noDigit, total)
	}
}

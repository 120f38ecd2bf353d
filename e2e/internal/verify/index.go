package verify

import (
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/idxserver"
)

// IndexRun is one client run of fakemodel.IndexScript as the index
// server's log shows it: the calls of one server instance, in order.
type IndexRun struct {
	Instance string
	Calls    []idxserver.Record
}

// IndexRuns splits a log into runs, one per server instance that got a
// call, in the order the instances started.
func IndexRuns(recs []idxserver.Record) []IndexRun {
	var runs []IndexRun
	at := map[string]int{}
	for _, r := range recs {
		i, seen := at[r.Instance]
		if !seen {
			i = len(runs)
			at[r.Instance] = i
			runs = append(runs, IndexRun{Instance: r.Instance})
		}
		if r.Event == "call" {
			runs[i].Calls = append(runs[i].Calls, r)
		}
	}
	out := runs[:0]
	for _, r := range runs {
		if len(r.Calls) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// DescribeIndex is one line for a record.
func DescribeIndex(r idxserver.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Instance, r.Tool)
	if m := indexMark(r); m != "" {
		fmt.Fprintf(&b, " [%s]", m)
	}
	switch {
	case r.Received != "":
		fmt.Fprintf(&b, " with %s", r.Received)
	case r.HasIndex:
		fmt.Fprintf(&b, " with session_index=%v", r.Args[idxserver.Arg])
	case r.Tool != "start_session":
		b.WriteString(" without session_index")
	}
	fmt.Fprintf(&b, ": %s", r.Verdict)
	if r.Issued != "" {
		fmt.Fprintf(&b, ", issued %s", r.Issued)
	}
	if r.Reason != "" {
		fmt.Fprintf(&b, " (%s)", r.Reason)
	}
	return b.String()
}

// indexMark is the mark of a call of fakemodel.IndexScript.
func indexMark(r idxserver.Record) string {
	for _, k := range []string{"activity_id", "transition"} {
		if v, ok := r.Args[k].(string); ok {
			return v
		}
	}
	return ""
}

// IndexCheck checks the runs of a loop of fakemodel.IndexScript against
// the index server, one run per client session, in order. failing says
// which runs' restarts the server was told to fail; proxy says the index
// went through interceptor's proxy, which answers a call that needs a
// retired index itself (so the call after a failed restart never reaches
// the server), where hooks let it go on without an index. Checks, per run:
// the calls the script makes, in order, each received by the server;
// start_session issued an index (the restart failed exactly when it was
// designated to); every call carried exactly the index of the session it
// was meant for (the current one, or the child's where the model named it)
// and none carried an index of an earlier session, of this run or an
// earlier one. It returns one line per problem.
func IndexCheck(runs []IndexRun, failing map[int]bool, proxy bool) []string {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	owner := map[string]string{} // index -> "run N's first session" etc.
	for n, run := range runs {
		var (
			current   string // the session the next call must carry
			child     string
			starts    int
			sessions  []string
			marks     []string
			wantMarks []string
		)
		wantMarks = []string{"start_session", fakemodel.MarkBeforeRestart, fakemodel.MarkBeforeRestart, "start_session"}
		if failing[n] {
			if !proxy {
				wantMarks = append(wantMarks, fakemodel.MarkAfterFailedRestart)
			}
			wantMarks = append(wantMarks, "start_session")
		}
		wantMarks = append(wantMarks, fakemodel.MarkAfterRestart, fakemodel.MarkAfterRestart, "dispatch_child",
			fakemodel.MarkChild, fakemodel.MarkAfterChild, fakemodel.MarkAfterChild)
		for _, r := range run.Calls {
			mark := indexMark(r)
			switch r.Tool {
			case "start_session":
				mark = "start_session"
			case "dispatch_child":
				mark = "dispatch_child"
			}
			marks = append(marks, mark)
			if r.Tool == "start_session" {
				starts++
				designated := failing[n] && starts == 2
				switch {
				case designated && r.Verdict != idxserver.VerdictStartFailed:
					bad("run %d: %s: the restart was designated to fail", n, DescribeIndex(r))
				case !designated && r.Verdict != idxserver.VerdictOK:
					bad("run %d: %s", n, DescribeIndex(r))
				}
				current = r.Issued
				if r.Issued != "" {
					owner[r.Issued] = fmt.Sprintf("run %d's session %d", n, len(sessions)+1)
					sessions = append(sessions, r.Issued)
				}
				continue
			}
			want, who := current, "the current session's index"
			switch mark {
			case fakemodel.MarkChild:
				want, who = child, "the child's index (the model named it)"
			case fakemodel.MarkAfterFailedRestart:
				want, who = "", "no index (the restart failed)"
				if proxy {
					bad("run %d: %s: the call after a failed restart reached the server; the proxy must answer it itself", n, DescribeIndex(r))
					continue
				}
			}
			switch {
			case r.Received != want && r.Received != "" && owner[r.Received] != "" && !strings.HasPrefix(owner[r.Received], fmt.Sprintf("run %d's", n)):
				bad("run %d: %s: carried an index of %s (a stale value), want %s", n, DescribeIndex(r), owner[r.Received], who)
			case r.Received != want && owner[r.Received] != "":
				bad("run %d: %s: carried the index of %s, want %s %q", n, DescribeIndex(r), owner[r.Received], who, want)
			case r.Received != want:
				bad("run %d: %s: want %s %q", n, DescribeIndex(r), who, want)
			case want != "" && r.Verdict != idxserver.VerdictOK:
				bad("run %d: %s", n, DescribeIndex(r))
			case want == "" && r.Verdict != idxserver.VerdictMissing:
				bad("run %d: %s: want the server to see no index", n, DescribeIndex(r))
			}
			if r.Tool == "dispatch_child" && r.Issued != "" {
				child = r.Issued
				owner[child] = fmt.Sprintf("run %d's child session", n)
			}
		}
		if got, want := strings.Join(marks, ","), strings.Join(wantMarks, ","); got != want {
			bad("run %d: the server saw the calls [%s], want [%s]", n, got, want)
		}
	}
	return probs
}

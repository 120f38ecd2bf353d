//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/verify"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
)

// TestHandlesNearMissCodex: the bug this project started from, through
// Codex's hooks (`interceptor install codex --server wf --trust`, the
// default --arg session_token). Codex shows the model the real token (about
// 480 characters); the scripted model copies it with two characters
// inserted (fakemodel.NearMissScript). The hook repairs the argument to the
// held token, so the server accepts the call, and says so in the debug log.
// With E2E_HOOK=e2e/testdata/loghook.sh the same call reaches the server as
// the model typed it, and is rejected.
func TestHandlesNearMissCodex(t *testing.T) {
	parallel(t)
	hs := newHandlesScenario(t, handlesCodex, false, "wf", nil, fakemodel.NearMissScript{Server: "wf"},
		func(sc *scenario) (string, []string) {
			return bins.tokenServer, []string{"--role", wfserver.RoleWF, "--name", "wf", "--log", sc.serverLog, "--awkward"}
		})
	const label = "E2E-RUN-0"
	took := hs.run(label, prompt+" "+label)
	t.Logf("%s: the run took %s", hs.hc.name, took.Round(100*time.Millisecond))

	recs, err := wfserver.ReadLog(hs.serverLog)
	if err != nil {
		t.Fatal(err)
	}
	var issued string
	var steps []wfserver.Record
	for _, r := range recs {
		t.Logf("server: %s", verify.Describe(r))
		switch {
		case r.Event == "call" && r.Tool == "start_session" && r.Verdict == wfserver.VerdictOK:
			issued = r.IssuedToken
		case r.Event == "call" && r.Tool == "next_step":
			steps = append(steps, r)
		}
	}
	if issued == "" {
		t.Fatalf("start_session issued no token")
	}
	t.Logf("the token start_session issued is %d characters long", len(issued))
	if n := len(issued); n < 450 || n > 520 {
		t.Errorf("the token is %d characters long, want about 480", n)
	}
	// The model read the real token and sent a near miss of it.
	seen := hs.script.seen(label)
	if len(seen) == 0 || fakemodel.ShownToken(seen[0]) != issued {
		t.Errorf("the model did not read the token start_session issued (Codex shows it): %q", tail(strings.Join(seen, "\n"), 5))
	}
	sent := false
	for _, r := range hs.model.Requests() {
		if strings.Contains(r.Reply, fakemodel.NearMiss(issued)) {
			sent = true
		}
	}
	if !sent {
		t.Errorf("no model turn sent the token with two characters inserted: the test did not test a near miss")
	}
	if len(steps) != 2 {
		t.Fatalf("the server saw %d next_step calls, want 2", len(steps))
	}
	if r := steps[0]; r.Verdict != wfserver.VerdictOK || r.ReceivedToken != issued {
		t.Errorf("next_step one (the near miss): %s: want it accepted with the issued token (repaired)", verify.Describe(r))
	}
	if r := steps[1]; r.Verdict != wfserver.VerdictOK {
		t.Errorf("next_step two (injected): %s", verify.Describe(r))
	}
	b, _ := os.ReadFile(hs.debugLog)
	if !strings.Contains(string(b), "repaired session_token: a near miss of the held session_token") {
		t.Errorf("the debug log has no line saying the near miss was repaired:\n%s", tail(string(b), 10))
	}
	if t.Failed() {
		raw, _ := os.ReadFile(hs.serverLog)
		hs.dumpRuns(string(raw))
	}
}

package relay

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/inbox"
)

// A machine's children cross with its heartbeat and at each change of its
// queue, as its own page lists them (inbox.ChildrenJSON; the masking is
// internal/inbox's TestChildrenOfOtherMachines), and the inbox gives them
// per machine; a relay that stopped leaves them marked unreachable.
func TestChildrenCrossPerMachine(t *testing.T) {
	ns := startNATS(t, t.TempDir(), 0)
	box := startMachine(t, natsURL(ns), "devbox", time.Hour)
	in := startInbox(t, natsURL(ns), "desk")
	<-in.Loaded()
	if _, err := children.New(box.dir).Create(children.Child{Name: "fixer", Client: "claude-code", WorkingDir: t.TempDir(),
		Env: map[string]string{"PATH": "/usr/bin:/bin"}}); err != nil {
		t.Fatal(err)
	}
	// A change of the queue publishes them now, not at the next heartbeat.
	enqueue(t, box.q, "S", "Bash", `{"command":"ls"}`, time.Now().Add(time.Minute))
	type list struct {
		Children []struct {
			Name   string `json:"name"`
			Client string `json:"client"`
		} `json:"children"`
	}
	var got []inbox.MachineChildren
	var l list
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got = in.OtherChildren(); len(got) == 1 {
			l = list{}
			if err := json.Unmarshal(got[0].Children, &l); err != nil {
				t.Fatal(err)
			}
			if len(l.Children) > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no machine's child reached the inbox: %+v", got)
		}
	}
	if got[0].Machine != "devbox" || got[0].Unreachable || len(l.Children) != 1 || l.Children[0].Name != "fixer" ||
		l.Children[0].Client != "claude-code" {
		t.Errorf("devbox's children: %+v, %s", got[0], got[0].Children)
	}
	box.stop()
	<-box.done
	box.done <- nil
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got = in.OtherChildren(); len(got) == 1 && got[0].Unreachable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stopped relay's children: %+v", got)
		}
	}
}

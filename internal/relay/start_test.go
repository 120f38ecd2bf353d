package relay

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// Relays that start at once, each publishing a request at once, while an
// inbox starts reading: every request shows, with an hour's heartbeat (no
// later full check brings a lost one back). The inbox used to lose a
// request put while it had read one bucket whole and not yet the other
// (the change went to the map the end of the reading then replaced): 3
// runs in 8 of TestExampleConfigScopesMachines with an hour's heartbeat,
// 3 runs in 5 of this test (-count=5), under load.
func TestRelaysStartingAtOnce(t *testing.T) {
	const machines, rounds = 4, 12
	for round := range rounds {
		ns := startNATS(t, t.TempDir(), 0)
		url := natsURL(ns)
		ms := make([]*machine, machines)
		var wg sync.WaitGroup
		for i := range machines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ms[i] = startMachine(t, url, fmt.Sprintf("m%d", i), time.Hour)
				enqueue(t, ms[i].q, "S", "Bash", `{"command":"ls"}`, time.Now().Add(time.Minute))
			}()
		}
		in := startInbox(t, url, "desk")
		wg.Wait()
		deadline := time.Now().Add(5 * time.Second)
		for {
			open, _ := in.Open(t.Context())
			if len(open) == machines {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the inbox shows %d requests of %d machines 5 s after they were queued: %v", round, len(open), machines, ids(open))
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, m := range ms {
			m.stop()
			<-m.done
			m.done <- nil // for the cleanup's wait
		}
		ns.Shutdown()
	}
}

package relay

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// BenchmarkRequestToInbox is the time from a request being queued to a
// page's source seeing it, side by side: local (the inbox's own wake: the
// queue's watch, then Pending) and nats (another machine's inbox: the
// relay's watch, a bucket put, the inbox's bucket watch), over loopback to
// an embedded server. Each request is then decided, so open/ stays small.
// The target for nats: under 200 ms.
func BenchmarkRequestToInbox(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		q := approvals.New(filepath.Join(b.TempDir(), "m"))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seen := make(chan string, 16)
		ready := make(chan struct{})
		go q.Changes(ctx, func() bool {
			select {
			case <-ready:
			default:
				close(ready)
			}
			rs, _ := q.Pending()
			for _, r := range rs {
				seen <- r.ID
			}
			return ctx.Err() == nil
		})
		<-ready
		b.ResetTimer()
		for range b.N {
			r := enqueueB(b, q)
			waitFor(b, seen, r.ID)
			q.Decide(r.ID, hooks.Decision{Allow: true, By: "bench"})
		}
	})
	b.Run("nats", func(b *testing.B) {
		ns := startNATS(b, b.TempDir(), 0)
		m := startMachine(b, natsURL(ns), "devbox", 10*time.Second)
		in := startInbox(b, natsURL(ns), "desk")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seen := make(chan string, 16)
		<-in.Loaded()
		go in.Changes(ctx, func() bool {
			open, _ := in.Open(ctx)
			for _, o := range open {
				seen <- o.Request.ID
			}
			return ctx.Err() == nil
		})
		b.ResetTimer()
		for range b.N {
			r := enqueueB(b, m.q)
			waitFor(b, seen, r.ID)
			m.q.Decide(r.ID, hooks.Decision{Allow: true, By: "bench"})
		}
	})
}

// BenchmarkIdleCPU is the CPU this process spends per second of wall time
// (cpu-ms/s) with an embedded NATS server and an inbox following it, idle:
// without a relay, and with one relaying an idle queue of 10 open requests
// (heartbeat 10 s, the default). The difference is the idle relay's cost.
func BenchmarkIdleCPU(b *testing.B) {
	measure := func(b *testing.B, withRelay bool) {
		ns := startNATS(b, b.TempDir(), 0)
		startInbox(b, natsURL(ns), "desk")
		if withRelay {
			m := startMachine(b, natsURL(ns), "devbox", 10*time.Second)
			for range 10 {
				enqueueB(b, m.q)
			}
		}
		time.Sleep(500 * time.Millisecond) // settle
		b.ResetTimer()
		start, wall := cpu(), time.Now()
		for range b.N {
			time.Sleep(time.Second)
		}
		b.ReportMetric(float64((cpu()-start).Microseconds())/1000/time.Since(wall).Seconds(), "cpu-ms/s")
	}
	b.Run("server+inbox", func(b *testing.B) { measure(b, false) })
	b.Run("server+inbox+relay", func(b *testing.B) { measure(b, true) })
}

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func enqueueB(b *testing.B, q *approvals.Store) approvals.Request {
	r, err := q.Enqueue(approvals.Request{Client: "claude-code", Session: "S", Tool: "Bash", Input: `{"command":"ls"}`,
		Deadline: time.Now().Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func waitFor(b *testing.B, seen chan string, id string) {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got := <-seen:
			if got == id {
				return
			}
		case <-timeout:
			b.Fatalf("request %s never seen", id)
		}
	}
}

// BenchmarkOpen1000 is one read of what waits by a page following 10
// machines with 100 open requests each (the 1,000 across 10): the
// inbox's copy of the bucket, sorted, reachability checked. The page's
// stream does this at each change.
func BenchmarkOpen1000(b *testing.B) {
	in := &Inbox{reqs: map[string]Entry{}, pres: map[string]Presence{}, changed: make(chan struct{})}
	now := time.Now()
	for m := range 10 {
		name := "machine-" + string(rune('a'+m))
		in.pres[name] = Presence{Machine: name, At: now, EveryMS: 10000}
		for i := range 100 {
			id := name + "-" + time.Duration(i).String()
			in.reqs[requestKey(name, id)] = Entry{Machine: name, Request: Wire{ID: id, Status: "pending", Client: "claude-code",
				Tool: "Bash", Input: `{"command":"make test"}`, Created: now.Add(time.Duration(i) * time.Millisecond)}}
		}
	}
	b.ResetTimer()
	for range b.N {
		open, _ := in.Open(context.Background())
		if len(open) != 1000 {
			b.Fatal(len(open))
		}
	}
}

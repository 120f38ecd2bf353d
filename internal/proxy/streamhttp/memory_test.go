package streamhttp

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/proxy"
	"github.com/interceptor-dev/interceptor/internal/proxy/proxytest"
	"github.com/interceptor-dev/interceptor/internal/testfiles"
	"github.com/tidwall/gjson"
)

// TestRelayMemoryIsBounded: a server that answers with far more than
// --max-message (64 MiB, against a 1 MiB limit) as a JSON body, as one
// event's data line, as one event of 64,000 data lines, and as an HTTP
// error body, costs the relay memory of the order of the limit, not of
// what the server sent; each call gets an error reply and the session goes
// on (a held promise of issue 22's review). The server runs in this
// process and streams from a reader that holds nothing, so the
// allocations measured are the relay's.
func TestRelayMemoryIsBounded(t *testing.T) {
	const limit, size = 1 << 20, 64 << 20
	line := append(append([]byte("data: "), bytes.Repeat([]byte("A"), 1018)...), '\n') // 1 KiB
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		id := gjson.GetBytes(body, "id").Str
		head := `{"jsonrpc":"2.0","id":"` + id + `","result":{"content":[{"type":"text","text":"`
		switch id {
		case "json":
			w.Header().Set("Content-Type", "application/json")
			io.Copy(w, io.MultiReader(strings.NewReader(head), testfiles.Repeat('A', size), strings.NewReader(`"}]}}`)))
		case "event-line":
			w.Header().Set("Content-Type", "text/event-stream")
			io.Copy(w, io.MultiReader(strings.NewReader("event: message\ndata: "+head), testfiles.Repeat('A', size), strings.NewReader("\"}]}}\n\n")))
		case "event-lines":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: "+head+"\n")
			for range size / len(line) {
				w.Write(line)
			}
			io.WriteString(w, "data: \"}]}}\n\n")
		case "error":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusInternalServerError)
			io.Copy(w, testfiles.Repeat('E', size))
		default: // ping
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":"`+id+`","result":{}}`)
		}
	}))
	defer ts.Close()
	ids := []string{"json", "event-line", "event-lines", "error"}
	var in strings.Builder
	for _, id := range ids {
		in.WriteString(`{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"next_step","arguments":{}}}` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"after","method":"ping"}` + "\n")
	rw, err := proxy.New(proxy.Config{Server: "wf", Options: carry.Options{Arg: "session_token", MetaKey: "session_token"}, MaxMessage: limit})
	if err != nil {
		t.Fatal(err)
	}
	var out proxytest.SyncBuffer
	h := &HTTP{URL: ts.URL, In: strings.NewReader(in.String()), Out: &out, Grace: 30 * time.Second}

	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the live heap, sampled while the relay runs
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, err := h.Run(rw)
	runtime.ReadMemStats(&after)
	close(stop)
	<-sampled
	if err != nil || code != 0 {
		t.Fatalf("code %d err %v", code, err)
	}
	got := map[string]gjson.Result{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		m := gjson.Parse(l)
		got[m.Get("id").Str] = m
	}
	for _, id := range ids {
		t.Logf("%s: %.200s", id, got[id].Get("error.message").Str)
		if m := got[id]; !m.Get("error.message").Exists() || m.Get("result").Exists() || len(m.Raw) > 4<<10 {
			t.Errorf("%s: the client got %.300s; want a short error reply", id, m.Raw)
		}
	}
	if m := got["after"]; m.Get("result").Raw != "{}" {
		t.Errorf("after the large answers: %.300s", m.Raw)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	grown := peak.Load() - min(peak.Load(), before.HeapAlloc)
	t.Logf("4 answers of %d MiB each (limit %d MiB): %d MiB allocated in all, live heap at most %d MiB above the start",
		size>>20, limit>>20, alloc>>20, grown>>20)
	if alloc > 32<<20 || grown > 16<<20 {
		t.Errorf("relaying 4 answers of %d MiB under a %d MiB limit allocated %d MiB (the live heap grew by %d MiB); want memory of the order of the limit",
			size>>20, limit>>20, alloc>>20, grown>>20)
	}
}

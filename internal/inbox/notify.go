package inbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// A notification says that something waits and where to answer it: the
// tool (masked like every view, made Visible, cut), whether it is an
// approval or a question, the child and client, and the page's link
// without its secret. Never the arguments (they may carry anything the
// model wrote) and never a token: the message can go to a server outside
// the machine (ntfy.sh).

// note is one request that started waiting.
type note struct {
	ID, Kind, Tool, Child, Client string
	Machine                       string // "" this one (Source)
}

func (n note) title() string {
	if n.Kind == "question" {
		return "interceptor: a question waits"
	}
	return "interceptor: an approval waits"
}

func (n note) text(link string) string {
	what := "waits for your decision"
	if n.Kind == "question" {
		what = "asks you a question"
	}
	return n.Tool + " " + what + n.who() + ". " + link
}

// who is " (machine M, child C, client)", or "" when none is known.
func (n note) who() string {
	var who []string
	if n.Machine != "" {
		who = append(who, "machine "+n.Machine)
	}
	if n.Child != "" {
		who = append(who, "child "+n.Child)
	}
	if n.Client != "" {
		who = append(who, n.Client)
	}
	if len(who) == 0 {
		return ""
	}
	return " (" + strings.Join(who, ", ") + ")"
}

// notifier sends notes: to a URL, and to the desktop.
type notifier struct {
	url      string
	asJSON   bool
	desktop  string // notify-send's path, "" none
	link     string
	log      io.Writer
	client   *http.Client
	stateDir string
	mu       sync.Mutex    // log lines
	ready    chan struct{} // closed once the requests waiting at start are known
	// burst is how long the first new request of a burst waits for the
	// others to go in one message ("5 requests wait", not five pings).
	burst time.Duration
	// The watch hands the sender what waits now (pend, under pendMu) and
	// kicks it; arrived says new requests came since the sender last took
	// it. The watch never waits for the network.
	pendMu sync.Mutex
	pend   []note
	fresh  bool
	kick   chan struct{}
	// seq names this inbox's messages for ntfy's X-Sequence-ID: one per
	// run of waiting requests, so a message is updated, then cleared.
	seq string
}

// burstWait is notifier.burst unless a test says otherwise: short enough
// that a person is told at once, long enough for a parallel agent's calls
// (they come within milliseconds) to make one message.
const burstWait = 1500 * time.Millisecond

func newNotifier(o Options) (*notifier, error) {
	n := &notifier{url: o.Notify, asJSON: o.NotifyJSON, log: o.Log, stateDir: o.StateDir,
		client: &http.Client{Timeout: 10 * time.Second}, ready: make(chan struct{}), burst: burstWait,
		kick: make(chan struct{}, 1), seq: newSeq()}
	switch {
	case o.NotifyWait < 0:
		n.burst = 0
	case o.NotifyWait > 0:
		n.burst = o.NotifyWait
	}
	if n.url != "" {
		u, err := url.Parse(n.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--notify: want an http or https URL (an ntfy topic, a webhook), got %s", maskURL(n.url))
		}
	}
	if o.Desktop {
		n.desktop = desktopCommand()
	}
	return n, nil
}

// desktopCommand finds the desktop's notifier: notify-send (libnotify) on
// Linux and the BSDs. Other platforms get none: --notify reaches a phone or
// a desktop app there (ntfy has both).
func desktopCommand() string {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return ""
	}
	p, err := exec.LookPath("notify-send")
	if err != nil {
		return ""
	}
	return p
}

// The notify URL is a secret (an ntfy topic is readable by whoever knows
// its name; a webhook may carry ?auth=): what is printed or logged of it is
// its scheme and host, then a mask.

// maskURL is raw as scheme://host/…, or a mask alone where raw has no
// scheme and host.
func maskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "… (not repeated: it may be a secret)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// scrub is err as one line that holds nothing of the notify URL beyond
// maskURL: an http.Client error names the whole URL.
func (n *notifier) scrub(err error) string {
	var ue *url.Error
	msg := err.Error()
	if errors.As(err, &ue) {
		msg = ue.Op + " " + maskURL(n.url) + ": " + ue.Err.Error()
	}
	u, perr := url.Parse(n.url)
	parts := []string{n.url}
	if perr == nil {
		parts = append(parts, u.EscapedPath(), u.Path, u.RawQuery, u.Fragment, u.User.String())
	}
	for _, p := range parts {
		if len(p) > 1 {
			msg = strings.ReplaceAll(msg, p, "…")
		}
	}
	return msg
}

// Describe says where notifications go, for the start-up lines.
func (s *Server) Describe() string {
	var parts []string
	if s.notify.url != "" {
		parts = append(parts, "POST to "+maskURL(s.notify.url))
	}
	switch {
	case s.notify.desktop != "":
		parts = append(parts, "desktop ("+s.notify.desktop+")")
	case s.opts.Desktop && (runtime.GOOS == "windows" || runtime.GOOS == "darwin"):
		parts = append(parts, "no desktop notifications on "+runtime.GOOS+" (use --notify)")
	case s.opts.Desktop:
		parts = append(parts, "no desktop notifications (notify-send is not on PATH)")
	}
	if len(parts) == 0 {
		return "notifications: none"
	}
	return "notifications: " + strings.Join(parts, "; ")
}

func (n *notifier) enabled() bool { return n.url != "" || n.desktop != "" }

func (n *notifier) logf(format string, a ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprintf(n.log, "inbox: "+format+"\n", a...)
}

// newSeq is the stem of this inbox's sequence ids: random, so two inboxes
// (or two runs of one) on one topic never update each other's messages.
func newSeq() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "interceptor-" + hex.EncodeToString(b)
}

// watch follows what waits, until ctx ends, and hands it to the sender:
// the requests that started waiting after the watch began, still open.
// The requests already waiting at start are the person's to see on the
// page.
func (n *notifier) watch(ctx context.Context, q Source, kids *children.Store) {
	if !n.enabled() {
		return
	}
	go n.send(ctx)
	var seen map[string]bool
	waiting := map[string]note{} // by key, since the watch began
	var order []string           // waiting's keys, oldest first
	err := q.Changes(ctx, func() bool {
		open, err := q.Open(ctx)
		if err != nil {
			n.logf("reading the queue for notifications: %v", err)
			return true
		}
		now := map[string]bool{}
		arrived := false
		for _, o := range open {
			key := o.Machine + "/" + o.Request.ID
			now[key] = true
			if seen != nil && !seen[key] {
				if _, ok := waiting[key]; !ok {
					waiting[key] = n.noteOf(o, q.Here(o.Machine), kids)
					order = append(order, key)
					arrived = true
				}
			}
		}
		kept := order[:0]
		for _, k := range order {
			if now[k] {
				kept = append(kept, k)
			} else {
				delete(waiting, k) // decided (here, elsewhere, or timed out)
			}
		}
		order = kept
		if seen == nil {
			close(n.ready)
		}
		seen = now
		notes := make([]note, len(order))
		for i, k := range order {
			notes[i] = waiting[k]
		}
		n.hand(notes, arrived)
		return true
	})
	if err != nil && ctx.Err() == nil {
		n.logf("notifications stopped: %v", err)
	}
}

// hand gives the sender what waits now; it never blocks.
func (n *notifier) hand(open []note, arrived bool) {
	n.pendMu.Lock()
	n.pend, n.fresh = open, n.fresh || arrived
	n.pendMu.Unlock()
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

func (n *notifier) take() ([]note, bool) {
	n.pendMu.Lock()
	defer n.pendMu.Unlock()
	open, arrived := n.pend, n.fresh
	n.fresh = false
	return open, arrived
}

// noteOf is an open request as a notification names it. The tool name
// comes from the model (permit takes any): it is masked with the
// session's held tokens, made Visible, and cut. Another machine's request
// (here false) comes masked by its relay and names its child itself.
func (n *notifier) noteOf(o Open, here bool, kids *children.Store) note {
	r := o.Request
	x := note{ID: r.ID, Kind: "approval", Client: vis(r.Client), Machine: vis(o.Machine), Child: vis(o.Child)}
	if r.IsInput() {
		x.Kind = "question"
	}
	x.Tool = cut(vis(approvals.LoadSecrets(state.New(n.stateDir), r.Session, "").MaskText(r.Tool)), 80)
	if !here || x.Child != "" {
		return x
	}
	if id, _, err := children.ParseChatID(r.Chat); err == nil {
		if c, err := kids.Get(id); err == nil {
			x.Child = vis(c.Name)
		}
	}
	return x
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// send turns what waits into messages. A burst of new requests waits
// n.burst after its first, then goes as one message (high priority when
// an approval is among them) and one desktop notification. While it is
// shown, a decision updates it quietly with what still waits, and the
// last one clears it; the next burst is a new message.
func (n *notifier) send(ctx context.Context) {
	var (
		open  []note
		shown int    // how many the message on show names; 0: none
		sid   string // its sequence id
		runs  int
		timer *time.Timer
		fire  <-chan time.Time
	)
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-n.kick:
			var arrived bool
			open, arrived = n.take()
			if arrived && fire == nil {
				timer = time.NewTimer(n.burst)
				fire = timer.C
			}
			if fire != nil || shown == 0 || len(open) == shown {
				continue // the burst's message will say it, or nothing to change
			}
			if len(open) == 0 {
				n.deliver(ctx, msgOf(open, sid, "clear"))
			} else {
				n.deliver(ctx, msgOf(open, sid, "update"))
			}
			shown = len(open)
		case <-fire:
			fire, timer = nil, nil
			if len(open) == 0 {
				if shown > 0 {
					n.deliver(ctx, msgOf(open, sid, "clear"))
					shown = 0
				}
				continue
			}
			if shown == 0 {
				runs++
				sid = fmt.Sprintf("%s-%d", n.seq, runs)
			}
			n.deliver(ctx, msgOf(open, sid, "wait"))
			shown = len(open)
			if n.desktop != "" {
				if err := n.desktopShow(ctx, msgOf(open, sid, "wait")); err != nil {
					n.logf("desktop notification for %s not shown: %v", ids(open), err)
				}
			}
		}
	}
}

// message is one thing sent: a burst ("wait"), what still waits after a
// decision ("update"), or none left ("clear").
type message struct {
	event string
	sid   string
	open  []note
}

func msgOf(open []note, sid, event string) message {
	return message{event: event, sid: sid, open: open}
}

func ids(open []note) string {
	var s []string
	for _, x := range open {
		s = append(s, x.ID)
	}
	return strings.Join(s, ", ")
}

// shownInMessage is how many requests a message names before "and N more".
const shownInMessage = 3

func (m message) title() string {
	switch {
	case m.event == "clear":
		return "interceptor: nothing waits"
	case len(m.open) == 1:
		return m.open[0].title()
	}
	return fmt.Sprintf("interceptor: %d requests wait", len(m.open))
}

func (m message) text(link string) string {
	switch {
	case m.event == "clear":
		return "Every request was decided. " + link
	case len(m.open) == 1:
		return m.open[0].text(link)
	}
	var approvals, questions int
	var named []string
	for i, x := range m.open {
		if x.Kind == "question" {
			questions++
		} else {
			approvals++
		}
		if i < shownInMessage {
			named = append(named, x.Tool+x.who())
		}
	}
	s := fmt.Sprintf("%d requests wait (%s): %s", len(m.open), plural(approvals, "approval")+", "+plural(questions, "question"), strings.Join(named, "; "))
	if more := len(m.open) - len(named); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s + ". " + link
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// priority is ntfy's: high when an approval waits on a new burst (an
// agent is stopped until someone decides), the default for questions
// alone, low (no sound) for an update after a decision.
func (m message) priority() string {
	switch m.event {
	case "wait":
		for _, x := range m.open {
			if x.Kind != "question" {
				return "high"
			}
		}
		return "default"
	}
	return "low"
}

// deliver sends m to the URL, logging a failure in one line.
func (n *notifier) deliver(ctx context.Context, m message) {
	if n.url == "" {
		return
	}
	if err := n.post(ctx, m); err != nil {
		what := ids(m.open)
		if m.event == "clear" {
			what = "the decided requests"
		}
		n.logf("notification for %s not sent: %s", what, n.scrub(err))
	}
}

// post sends m to the URL: ntfy's form (the text as the body; Title,
// Tags, Priority, Click and X-Sequence-ID headers; a clear is PUT
// TOPIC/SID/clear), or with NotifyJSON an object for webhooks.
func (n *notifier) post(ctx context.Context, m message) error {
	method, target := http.MethodPost, n.url
	body := []byte(m.text(n.link))
	ctype := "text/plain; charset=utf-8"
	switch {
	case n.asJSON:
		body, _ = json.Marshal(n.jsonOf(m))
		ctype = "application/json"
	case m.event == "clear":
		u, _ := url.Parse(n.url) // checked by newNotifier
		u.Path = strings.TrimSuffix(u.Path, "/") + "/" + m.sid + "/clear"
		u.RawPath = ""
		method, target, body = http.MethodPut, u.String(), nil
	}
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Title", m.title())
		req.Header.Set("Tags", "hourglass")
		req.Header.Set("Priority", m.priority())
		req.Header.Set("Click", n.link)
	}
	req.Header.Set("X-Sequence-ID", m.sid)
	resp, err := n.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the notify URL answered %s", resp.Status)
	}
	return nil
}

// jsonOf is m for a webhook: the event and sequence id, the counts, each
// request, and (for one that names a single request) the newest one's
// fields at the top.
func (n *notifier) jsonOf(m message) map[string]any {
	var reqs []map[string]string
	approvals := 0
	for _, x := range m.open {
		reqs = append(reqs, map[string]string{"id": x.ID, "kind": x.Kind, "tool": x.Tool, "child": x.Child, "client": x.Client, "machine": x.Machine})
		if x.Kind != "question" {
			approvals++
		}
	}
	out := map[string]any{"event": m.event, "sequence_id": m.sid, "count": len(m.open), "approvals": approvals,
		"questions": len(m.open) - approvals, "text": m.text(n.link), "title": m.title(), "priority": m.priority(),
		"link": n.link, "requests": reqs}
	if len(m.open) > 0 {
		for k, v := range reqs[len(reqs)-1] {
			out[k] = v
		}
	}
	return out
}

func (n *notifier) desktopShow(ctx context.Context, m message) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// Arguments, not a shell line: nothing in them is interpreted.
	out, err := exec.CommandContext(ctx, n.desktop, "--app-name=interceptor", "--", m.title(), m.text(n.link)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

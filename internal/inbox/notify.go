package inbox

import (
	"bytes"
	"context"
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
	s := n.Tool + " " + what
	if len(who) > 0 {
		s += " (" + strings.Join(who, ", ") + ")"
	}
	return s + ". " + link
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
	queue    chan note
	mu       sync.Mutex    // log lines
	ready    chan struct{} // closed once the requests waiting at start are known
}

// maxQueued notes wait to be sent; more are dropped with one log line.
const maxQueued = 64

func newNotifier(o Options) (*notifier, error) {
	n := &notifier{url: o.Notify, asJSON: o.NotifyJSON, log: o.Log, stateDir: o.StateDir,
		client: &http.Client{Timeout: 10 * time.Second}, queue: make(chan note, maxQueued), ready: make(chan struct{})}
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

// watch notes every request that starts waiting after the watch began,
// until ctx ends. The requests already waiting at start are the person's
// to see on the page.
func (n *notifier) watch(ctx context.Context, q Source, kids *children.Store) {
	if !n.enabled() {
		return
	}
	go n.send(ctx)
	var seen map[string]bool
	err := q.Changes(ctx, func() bool {
		open, err := q.Open(ctx)
		if err != nil {
			n.logf("reading the queue for notifications: %v", err)
			return true
		}
		now := map[string]bool{}
		for _, o := range open {
			key := o.Machine + "/" + o.Request.ID
			now[key] = true
			if seen != nil && !seen[key] {
				n.add(n.noteOf(o, q.Here(o.Machine), kids))
			}
		}
		if seen == nil {
			close(n.ready)
		}
		seen = now
		return true
	})
	if err != nil && ctx.Err() == nil {
		n.logf("notifications stopped: %v", err)
	}
}

func (n *notifier) add(x note) {
	select {
	case n.queue <- x:
	default:
		n.logf("notification for %s dropped: %d are waiting to be sent", x.ID, maxQueued)
	}
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

func (n *notifier) send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case x := <-n.queue:
			if n.url != "" {
				if err := n.post(ctx, x); err != nil {
					n.logf("notification for %s not sent: %s", x.ID, n.scrub(err))
				}
			}
			if n.desktop != "" {
				if err := n.desktopShow(ctx, x); err != nil {
					n.logf("desktop notification for %s not shown: %v", x.ID, err)
				}
			}
		}
	}
}

// post sends x to the URL: ntfy's form (the text as the body, Title, Tags
// and Click headers), or with NotifyJSON an object for webhooks.
func (n *notifier) post(ctx context.Context, x note) error {
	body := []byte(x.text(n.link))
	ctype := "text/plain; charset=utf-8"
	if n.asJSON {
		body, _ = json.Marshal(map[string]string{"text": x.text(n.link), "title": x.title(), "id": x.ID, "kind": x.Kind,
			"tool": x.Tool, "child": x.Child, "client": x.Client, "machine": x.Machine, "link": n.link})
		ctype = "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Title", x.title())
	req.Header.Set("Tags", "hourglass")
	req.Header.Set("Click", n.link)
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

func (n *notifier) desktopShow(ctx context.Context, x note) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// Arguments, not a shell line: nothing in them is interpreted.
	out, err := exec.CommandContext(ctx, n.desktop, "--app-name=interceptor", "--", x.title(), x.text(n.link)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

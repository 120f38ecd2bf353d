// Package watch is approvals watch's terminal: the pending requests shown
// as they arrive, the oldest one asked about with its whole input, and a
// keypress that decides it (or a line typed: a deny's reason, a human
// tool's answer). Tests drive it through a pipe. summary.go is the one
// line per request that approvals list prints too.
package watch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/present"
)

// watchWidth and watchMaxLines bound what watch prints of one input before
// asking: lines wrap at watchWidth; an input of more lines is cut, and
// cannot be allowed with one key until v has printed it whole.
const (
	watchWidth    = 100
	watchMaxLines = 60
)

// Run is the watch loop: keys from in, the view to out, until q (or
// Ctrl-C, Ctrl-D), the end of in, or ctx's end. It returns once the
// queue's change watcher it started has stopped; the goroutine reading in
// ends with in's next byte or its end (a read cannot be called off). On a
// terminal, put in in raw mode first (termio.Raw), so that one keypress
// decides.
func Run(ctx context.Context, q *approvals.Store, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	keys := readKeys(ctx, in)
	changed := make(chan struct{}, 1)
	var watchErr error
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		watchErr = q.Changes(ctx, func() bool {
			select {
			case changed <- struct{}{}:
			default:
			}
			return ctx.Err() == nil
		})
	}()
	w := &watch{q: q, out: out, seen: map[string]bool{}, skipped: map[string]bool{}}
	err := w.loop(ctx, keys, changed, watchDone)
	cancel()
	<-watchDone
	if err == nil {
		err = watchErr
	}
	return err
}

// loop runs watch until it is done (see Run); the change
// watcher ending early (watchDone) ends it too.
func (w *watch) loop(ctx context.Context, keys <-chan byte, changed, watchDone <-chan struct{}) error {
	fmt.Fprintln(w.out, "watching for approval requests (a = allow, d = deny, s = skip, v = view the whole input, q = quit)")
	if err := w.refresh(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-watchDone:
			return nil
		case <-changed:
			if err := w.refresh(); err != nil {
				return err
			}
		case k, ok := <-keys:
			if !ok {
				return nil // end of input
			}
			quit, err := w.key(k)
			if quit || err != nil {
				return err
			}
		}
	}
}

// readKeys sends the bytes of in, one a key, until in ends (the channel
// closes) or ctx does.
func readKeys(ctx context.Context, in io.Reader) <-chan byte {
	keys := make(chan byte)
	go func() {
		defer close(keys)
		r := bufio.NewReader(in)
		for {
			b, err := r.ReadByte()
			if err != nil {
				return
			}
			select {
			case keys <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	return keys
}

// watch is what approvals watch shows and asks about: a terminal loop
// driven by keys and changes of the queue, which tests drive through a
// pipe.
type watch struct {
	q   *approvals.Store
	out io.Writer
	// seen are the requests shown as new; skipped those passed over.
	seen, skipped map[string]bool
	asking        string // the id the prompt is about
	shown         bool   // its whole input has been printed
	// line is the line being typed, if any: a human tool's answer
	// (answering) or a deny's reason.
	line      *lineInput
	answering bool
}

// prompt asks what to do with a request shown whole.
func (w *watch) prompt() { fmt.Fprint(w.out, "  [a]llow [d]eny [s]kip [q]uit? ") }

// ask prints the request and its input, whole and wrapped up to
// watchMaxLines lines. A longer input is cut with a note, and a one-key
// allow waits until v has printed all of it: a person allows only what
// they could read. A human tool's question asks for its answer.
func (w *watch) ask(r approvals.Request) {
	w.asking, w.line, w.answering = r.ID, nil, false
	lines := r.InputLines(watchWidth)
	if r.IsInput() {
		w.line, w.answering = askInput(w.out, r, lines), true
		return
	}
	fmt.Fprintf(w.out, "%s %s (%s, session %s):\n", r.ID, approvals.Visible(r.Tool), approvals.Visible(r.Client), approvals.Visible(r.Session))
	lines = present.Of(r).Text(watchWidth)
	w.shown = len(lines) <= watchMaxLines
	if !w.shown {
		lines = lines[:watchMaxLines]
	}
	for _, l := range lines {
		fmt.Fprintf(w.out, "    %s\n", l)
	}
	if !w.shown {
		fmt.Fprintf(w.out, "  [input cut: %d of %d lines shown; v shows it all, and allow waits until then]\n", watchMaxLines, len(present.Of(r).Text(watchWidth)))
		fmt.Fprint(w.out, "  [v]iew all [d]eny [s]kip [q]uit? ")
		return
	}
	w.prompt()
}

// refresh shows the requests new since the last look, says when the one
// asked about was decided elsewhere, and asks about the oldest one not
// skipped when none is asked about.
func (w *watch) refresh() error {
	rs, err := w.q.Pending()
	if err != nil {
		return err
	}
	rs = w.q.Viewer().Requests(rs)
	now := time.Now()
	pending := map[string]bool{}
	for _, r := range rs {
		pending[r.ID] = true
		if !w.seen[r.ID] {
			w.seen[r.ID] = true
			fmt.Fprintf(w.out, "new: %s\n", Summary(r, now))
		}
	}
	if w.asking != "" && !pending[w.asking] {
		if r, err := w.q.Get(w.asking); err == nil {
			fmt.Fprintf(w.out, "%s was %s elsewhere (by %s)\n", r.ID, Status(r, now), approvals.Visible(r.DecidedBy))
		}
		w.asking, w.line = "", nil
	}
	if w.asking == "" {
		for _, r := range rs {
			if !w.skipped[r.ID] {
				w.ask(r)
				break
			}
		}
	}
	return nil
}

// key handles one key; quit ends watch.
func (w *watch) key(k byte) (quit bool, err error) {
	if w.line != nil && w.asking != "" {
		return w.typed(k)
	}
	switch k {
	case 'q', 'Q', 3, 4: // 3: Ctrl-C, 4: Ctrl-D
		fmt.Fprintln(w.out)
		return true, nil
	case 'v', 'V':
		if w.asking == "" || w.shown {
			return false, nil
		}
		if w.view(); w.asking == "" {
			return false, w.refresh() // it is gone
		}
		return false, nil
	case 'a', 'A':
		if w.asking == "" {
			return false, nil
		}
		if !w.shown {
			fmt.Fprintf(w.out, "\nthe input of %s was not shown whole: press v to read it before allowing\n", w.asking)
			fmt.Fprint(w.out, "  [v]iew all [d]eny [s]kip [q]uit? ")
			return false, nil
		}
		return false, w.decide(hooks.Decision{Allow: true}, "\n")
	case 'd', 'D':
		if w.asking != "" {
			fmt.Fprint(w.out, "\n  the reason the model reads (Enter for none, Ctrl-C quits): ")
			w.line = &lineInput{out: w.out}
		}
		return false, nil
	case 's', 'S':
		if w.asking == "" {
			return false, nil
		}
		w.skipped[w.asking] = true
		fmt.Fprintf(w.out, "\nskipped %s\n", w.asking)
		w.asking = ""
		return false, w.refresh()
	}
	return false, nil
}

// typed takes a key of the line being typed: a human tool's answer, or
// the reason of a deny.
func (w *watch) typed(k byte) (quit bool, err error) {
	text, done, quit := w.line.key(k)
	if quit || !done {
		return quit, nil
	}
	if !w.answering {
		return false, w.decide(hooks.Decision{Reason: text}, "")
	}
	if text == "" {
		fmt.Fprintf(w.out, "skipped %s\n", w.asking)
		w.skipped[w.asking] = true
	} else {
		r, err := w.q.AnswerInput(w.asking, text, approvals.Decider("watch"))
		if errors.Is(err, approvals.ErrBadAnswer) {
			// The question still waits: say what the answer must be and
			// take another line.
			fmt.Fprintf(w.out, "%s\n%s", approvals.Visible(err.Error()), answerPrompt)
			w.line = &lineInput{out: w.out}
			return false, nil
		}
		if err := w.settled(r, err, ""); err != nil {
			return false, err
		}
	}
	w.asking, w.line = "", nil
	return false, w.refresh()
}

// decide applies d to the request asked about, and asks about the next;
// lead starts the line that says so.
func (w *watch) decide(d hooks.Decision, lead string) error {
	d.By = approvals.Decider("watch")
	r, err := w.q.Decide(w.asking, d)
	if err := w.settled(r, err, lead); err != nil {
		return err
	}
	w.asking, w.line = "", nil
	return w.refresh()
}

// settled reports a decision or answer given (r), or why it was not: one
// decided or gone meanwhile is reported, not fatal. lead starts the line.
func (w *watch) settled(r approvals.Request, err error, lead string) error {
	switch {
	case errors.Is(err, approvals.ErrDecided), errors.Is(err, approvals.ErrUnknown):
		fmt.Fprintf(w.out, "%s%v\n", lead, err)
	case err != nil:
		return err
	default:
		fmt.Fprintf(w.out, "%s%s %s\n", lead, r.ID, r.Status)
	}
	return nil
}

// view prints the whole input of the request asked about.
func (w *watch) view() {
	r, err := w.q.Get(w.asking)
	if err != nil {
		fmt.Fprintf(w.out, "\n%v\n", err)
		w.asking = ""
		return
	}
	r = w.q.Viewer().Request(r)
	fmt.Fprintln(w.out)
	for _, l := range present.Of(r).Text(watchWidth) {
		fmt.Fprintf(w.out, "    %s\n", l)
	}
	w.shown = true
	w.prompt()
}

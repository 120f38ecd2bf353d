package approvals

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Status is where a request is in its life.
type Status string

const (
	Pending Status = "pending"
	Allowed Status = "allowed"
	Denied  Status = "denied"
	Expired Status = "expired"
)

const (
	subDir     = "approvals"
	openDir    = "open"    // requests someone still waits on
	historyDir = "history" // every other request
	stagingDir = ".open-new"
	lockName   = ".lock"
	maxRecord  = 16 << 20 // a tool input is at most a hook payload (8 MiB)
)

var (
	// ErrUnknown means no request has that id.
	ErrUnknown = errors.New("no such approval request")
	// ErrDecided means the request was already decided (or expired); the new
	// decision was not applied.
	ErrDecided = errors.New("approval request already decided")
)

// Request is one approval request and, once decided, its decision.
type Request struct {
	ID           string
	Client       string // the client's --client name (claude-code for its permission-prompt tool; Origin tells the routes apart)
	Session      string // compared as bytes: one that is not UTF-8 is kept exactly (session_hex)
	Tool         string
	Input        string // the tool arguments, raw JSON ("{}" when none)
	Created      time.Time
	Deadline     time.Time // when the waiting hook gives up; zero: never
	Status       Status
	Reason       string // the decision's reason, shown to the model
	UpdatedInput string // raw JSON of new arguments to run with (allow only); "" none
	DecidedBy    string
	DecidedAt    time.Time
	Origin       string // what enqueued it (e.g. "approve hook pid 123"); informational
	Chat         string // the child chat that asked (interceptor children), "" none
	ToolUseID    string // the client's id of the call, when it sends one
	// Cwd is the session's working directory and Project its project (the
	// client's project dir, else the git root above Cwd), when the hook
	// event says: a person tells sessions apart by them, and project rules
	// match on Project.
	Cwd, Project string
	// Rule is the id of the rule that decided the request (rules.go), ""
	// when a person or the timeout did.
	Rule string

	// Kind is "" for an approval (allow or deny) and KindInput for a human
	// tool's question, which a person answers with text (input.go).
	Kind string
	Mode string // input: ModeHold or ModePark
	// InputSchema is the human tool's declared input schema (raw JSON),
	// so a page can lay the question out as a form; "" when not known.
	InputSchema string
	// AnswerSchema is the human tool's declared answerSchema (raw JSON):
	// what an answer must be (a type, choices, bounds); "" any text.
	AnswerSchema string
	Answer       string    // input: the person's answer, once given
	DeliveredAt  time.Time // input, park: when the answer went to the model
	DeliveredTo  string    // input, park: what delivered it (the prompt hook, a chat)
}

// Decision is the decision a decided request records, by whom it was
// made; a request still pending or expired has none (a deny).
func (r Request) Decision() hooks.Decision {
	d := hooks.Decision{Allow: r.Status == Allowed, Reason: r.Reason, By: r.DecidedBy}
	if d.Allow {
		d.UpdatedInput = r.UpdatedInput
	}
	return d
}

// Stale reports a pending request whose waiter has given up (its deadline
// passed, e.g. the client killed the hook): nobody waits for a decision.
func (r Request) Stale(now time.Time) bool {
	return r.Status == Pending && !r.Deadline.IsZero() && now.After(r.Deadline.Add(5*time.Second))
}

// open reports a request someone still waits on: pending, or a parked
// question's answer not yet delivered. Open requests live in open/, the
// rest in history/.
func (r Request) open() bool {
	return r.Status == Pending || r.Status == Answered && r.Mode == ModePark
}

// Store is an approval queue rooted at a state dir.
type Store struct {
	// StateDir is the interceptor state dir; records live in its approvals/.
	StateDir string
	// LockTimeout bounds a wait for another writer.
	LockTimeout time.Duration
	// Poll is the fallback re-check interval of waits. With inotify it only
	// guards against a lost event; without, it is the wake latency.
	Poll time.Duration
	now  func() time.Time
}

// New returns a store under stateDir; nothing is touched until it is used.
func New(stateDir string) *Store {
	return &Store{StateDir: stateDir, LockTimeout: 2 * time.Second, Poll: defaultPoll, now: time.Now}
}

// Dir is the queue's directory.
func (s *Store) Dir() string { return filepath.Join(s.StateDir, subDir) }

func (s *Store) openDir() string    { return filepath.Join(s.Dir(), openDir) }
func (s *Store) historyDir() string { return filepath.Join(s.Dir(), historyDir) }

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// ensure creates (0700) and checks the state dir and the queue's dirs.
func (s *Store) ensure() error {
	for _, d := range []string{s.StateDir, s.Dir()} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			if d == s.StateDir && errors.Is(err, fs.ErrNotExist) {
				if err := os.MkdirAll(d, 0o700); err != nil {
					return fmt.Errorf("creating state dir: %w", err)
				}
				continue
			}
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	return s.check()
}

// check refuses an unsafe state or queue dir (privfs.CheckDir), and brings
// a queue of the one-dir layout into open/ and history/ on first use (see
// migrate). A queue dir that does not exist is fs.ErrNotExist: an empty
// queue to readers.
func (s *Store) check() error {
	for _, d := range []string{s.StateDir, s.Dir()} {
		if err := privfs.CheckDir(d); err != nil {
			return err
		}
	}
	err := privfs.CheckDir(s.openDir())
	if errors.Is(err, fs.ErrNotExist) {
		err = s.migrate()
	}
	if err != nil {
		return err
	}
	err = privfs.CheckDir(s.historyDir())
	if errors.Is(err, fs.ErrNotExist) {
		// Removed by hand: the open requests still count.
		if err = os.Mkdir(s.historyDir(), 0o700); err == nil || errors.Is(err, fs.ErrExist) {
			err = privfs.CheckDir(s.historyDir())
		}
	}
	return err
}

// migrate makes open/ and history/, moving the records of the one-dir
// layout (approvals/<id>.json) into them. Open ones gather in a staging
// dir renamed to open/ last, so open/ appears whole: a reader that finds
// it never misses a pending request. An interrupted migration is picked up
// by the next one.
func (s *Store) migrate() error {
	return s.locked(func() error {
		if err := privfs.CheckDir(s.openDir()); !errors.Is(err, fs.ErrNotExist) {
			return err // another process did it, or it is unsafe
		}
		staging := filepath.Join(s.Dir(), stagingDir)
		for _, d := range []string{s.historyDir(), staging} {
			if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("creating %s: %w", d, err)
			}
			if err := privfs.CheckDir(d); err != nil {
				return err
			}
		}
		entries, err := os.ReadDir(s.Dir())
		if err != nil {
			return err
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || !validID(id) || !e.Type().IsRegular() {
				continue
			}
			from := filepath.Join(s.Dir(), e.Name())
			to := filepath.Join(s.historyDir(), e.Name())
			// An unreadable record goes to history, where list --all
			// reports it as it did before.
			if r, err := readRequest(from); err == nil && r.open() {
				to = filepath.Join(staging, e.Name())
			}
			if err := privfs.Rename(from, to, "approval record"); err != nil {
				return err
			}
		}
		return privfs.Rename(staging, s.openDir(), "approval queue dir")
	})
}

// validID accepts only ids this package makes: hex, so an id never names
// another path.
func validID(id string) bool {
	if len(id) < 8 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (s *Store) openPath(id string) string    { return filepath.Join(s.openDir(), id+".json") }
func (s *Store) historyPath(id string) string { return filepath.Join(s.historyDir(), id+".json") }

// newID is a time prefix and 48 random bits from the runtime's generator
// (ChaCha8; crypto/rand would link math/big into every hook process for
// nothing: an id is a name, not a secret, and Enqueue refuses a duplicate).
func newID(now time.Time) (string, error) {
	var b [6]byte
	r := rand.Uint64()
	for i := range b {
		b[i] = byte(r >> (8 * i))
	}
	// A time prefix (seconds, then microseconds) keeps ids in creation
	// order: History pages by id.
	return fmt.Sprintf("%08x%05x", uint32(now.Unix()), now.Nanosecond()/1000) + hex.EncodeToString(b[:]), nil
}

// idTime is the creation time prefix of an id: seconds and microseconds,
// or seconds alone in the 20-digit ids of earlier versions.
func idTime(id string) string {
	if len(id) >= 25 {
		return id[:13]
	}
	return id[:8]
}

// Enqueue stores a new pending request and returns it with its id and
// creation time set.
func (s *Store) Enqueue(r Request) (Request, error) {
	if err := s.ensure(); err != nil {
		return Request{}, err
	}
	r.Created = s.clock()
	id, err := newID(r.Created)
	if err != nil {
		return Request{}, fmt.Errorf("making an id: %w", err)
	}
	r.ID, r.Status = id, Pending
	r.Reason, r.UpdatedInput, r.DecidedBy, r.DecidedAt = "", "", "", time.Time{}
	if r.Input == "" || !gjson.Valid(r.Input) {
		r.Input = "{}"
	}
	r.Input = rawjson.OneLine(r.Input)
	// No lock: the record is written whole aside and linked into open/
	// under its fresh id (publish), which never replaces another record.
	for range 3 {
		data, err := encode(r)
		if err != nil {
			return Request{}, err
		}
		tmp, err := s.stage(data)
		if err != nil {
			return Request{}, err
		}
		err = s.publish(tmp, r.ID)
		if err == nil {
			return r, nil
		}
		os.Remove(tmp)
		if !errors.Is(err, errIDTaken) {
			return Request{}, err
		}
		if r.ID, err = newID(s.clock()); err != nil {
			return Request{}, fmt.Errorf("making an id: %w", err)
		}
	}
	return Request{}, fmt.Errorf("approval id %s already exists", r.ID)
}

// Get reads one request. An unknown (or malformed) id is ErrUnknown.
func (s *Store) Get(id string) (Request, error) {
	if !validID(id) {
		return Request{}, fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	if err := s.check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Request{}, fmt.Errorf("%w: %s", ErrUnknown, id)
		}
		return Request{}, err
	}
	return s.read(id)
}

// read finds a request where it is. A record only ever moves from open/ to
// history/, by one rename: read in that order, a request being moved is
// found in one or the other.
func (s *Store) read(id string) (Request, error) {
	r, err := readRequest(s.openPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		r, err = readRequest(s.historyPath(id))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return Request{}, fmt.Errorf("%w: %s", ErrUnknown, id)
	}
	return r, err
}

// Decide applies a supervisor's decision to a pending request: d.By is
// recorded as who decided. It returns the request as stored afterwards. Deciding an unknown id is ErrUnknown; deciding a
// request that is no longer pending (decided, expired, or stale: its waiter
// gave up) is ErrDecided, with the stored request returned unchanged.
func (s *Store) Decide(id string, d hooks.Decision) (Request, error) {
	if d.UpdatedInput != "" {
		if !d.Allow {
			return Request{}, errors.New("updated input goes only with an allow")
		}
		if !gjson.Valid(d.UpdatedInput) || !gjson.Parse(d.UpdatedInput).IsObject() {
			return Request{}, errors.New("updated input must be a JSON object")
		}
	}
	var out Request
	err := s.update(id, func(r *Request) error {
		now := s.clock()
		if r.Kind == KindInput {
			out = *r
			return fmt.Errorf("%w: %s asks a person for an answer, not allow or deny (approvals answer %s TEXT)", ErrNeedsAnswer, id, id)
		}
		if r.Status != Pending {
			out = *r
			return fmt.Errorf("%w: %s is %s (by %s)", ErrDecided, id, r.Status, r.DecidedBy)
		}
		if r.Stale(now) {
			out = *r
			return fmt.Errorf("%w: %s expired at %s; nobody waits for it any more", ErrDecided, id, r.Deadline.Format(time.RFC3339))
		}
		r.Status = Denied
		if d.Allow {
			r.Status = Allowed
			r.UpdatedInput = rawjson.OneLine(d.UpdatedInput)
		}
		r.Reason, r.DecidedBy, r.DecidedAt = d.Reason, d.By, now
		out = *r
		return nil
	})
	return out, err
}

// Expire marks a still pending request expired (its waiter gives up) and
// returns it. If a decision won the race, that request is returned, decided,
// and no error: the waiter uses the decision.
func (s *Store) Expire(id, by string) (Request, error) {
	var out Request
	err := s.update(id, func(r *Request) error {
		out = *r
		if r.Status != Pending {
			return errNoChange
		}
		r.Status, r.DecidedBy, r.DecidedAt = Expired, by, s.clock()
		out = *r
		return nil
	})
	if errors.Is(err, errNoChange) {
		err = nil
	}
	return out, err
}

// update runs fn on a record under its lock and writes the result, unless
// fn fails.
func (s *Store) update(id string, fn func(*Request) error) error {
	if !validID(id) {
		return fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	if err := s.check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s", ErrUnknown, id)
		}
		return err
	}
	return s.lockRecord(id, func() error {
		r, err := s.read(id)
		if err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
		return s.write(r)
	})
}

// Filter selects requests for List.
type Filter struct {
	// Pending keeps only requests still waiting for a decision (and not
	// stale): see Pending.
	Pending bool
	// Limit keeps the newest Limit requests; 0 keeps all.
	Limit int
}

// List returns requests oldest first: the pending ones (Filter.Pending),
// else every request, history included. A Limit reads only the records it
// returns. A queue dir that does not exist yet is an empty list.
func (s *Store) List(f Filter) ([]Request, error) {
	if f.Pending {
		rs, err := s.Pending()
		if f.Limit > 0 && len(rs) > f.Limit {
			rs = rs[len(rs)-f.Limit:]
		}
		return rs, err
	}
	if err := s.check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return []Request{}, nil
		}
		return nil, err
	}
	ids, err := s.ids(s.openDir(), s.historyDir())
	if err != nil {
		return nil, err
	}
	if f.Limit > 0 && len(ids) > f.Limit {
		// Ids sort by their creation time; keep the whole boundary
		// microsecond (second, for older ids), whose order only Created
		// tells.
		cut := len(ids) - f.Limit
		for cut > 0 && idTime(ids[cut-1]) == idTime(ids[cut]) {
			cut--
		}
		ids = ids[cut:]
	}
	out, err := s.readAll(ids)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out, err
}

// Pending returns the requests still waiting for a decision, oldest first.
// It reads open/ only: however long the history, this costs what is open.
// A pending request whose waiter is gone (Stale) is not listed, and is
// moved to the history as expired, so that open/ holds what is open.
func (s *Store) Pending() ([]Request, error) {
	if err := s.check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return []Request{}, nil
		}
		return nil, err
	}
	all, err := s.listOpen()
	if err != nil {
		return nil, err
	}
	now := s.clock()
	out := []Request{}
	var gone []string
	for _, r := range all {
		switch {
		case r.Stale(now) || !r.open():
			gone = append(gone, r.ID)
		case r.Status == Pending:
			out = append(out, r)
		}
	}
	if len(gone) > 0 {
		s.retire(gone) // best effort: a later list retries
	}
	return out, nil
}

// listOpen reads every record in open/, oldest first.
func (s *Store) listOpen() ([]Request, error) {
	ids, err := s.ids(s.openDir())
	if err != nil {
		return nil, err
	}
	return s.readAll(ids)
}

// retire moves what no longer belongs in open/ to the history: a pending
// request whose waiter is gone (expired, at its deadline) and a closed one a
// writer killed between its two renames left behind (see write).
func (s *Store) retire(ids []string) error {
	for _, id := range ids {
		err := s.lockRecord(id, func() error {
			r, err := readRequest(s.openPath(id))
			if err != nil {
				return nil // moved or pruned meanwhile
			}
			switch {
			case r.Stale(s.clock()):
				r.Status, r.DecidedBy, r.DecidedAt = Expired, "nobody: its waiter was gone at the deadline", r.Deadline
			case r.open():
				return nil
			}
			return s.write(r)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// HistoryPage is one page of History.
type HistoryPage struct {
	Requests []Request // newest first (by id, which starts with the creation time)
	// Next is the cursor of the following page (History's before); ""
	// after the last page.
	Next string
}

// History returns up to limit requests that are no longer open (decided,
// expired, answered, delivered) with ids before the cursor before ("": the
// newest), newest first. It lists history/'s names but reads only the
// records it returns.
func (s *Store) History(limit int, before string) (HistoryPage, error) {
	if limit <= 0 {
		limit = 50
	}
	if err := s.check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return HistoryPage{Requests: []Request{}}, nil
		}
		return HistoryPage{}, err
	}
	ids, err := s.ids(s.historyDir())
	if err != nil {
		return HistoryPage{}, err
	}
	if before != "" {
		ids = ids[:sort.SearchStrings(ids, before)]
	}
	page := HistoryPage{Requests: []Request{}}
	if len(ids) > limit {
		page.Next = ids[len(ids)-limit]
		ids = ids[len(ids)-limit:]
	}
	for i := len(ids) - 1; i >= 0; i-- {
		r, err := readRequest(s.historyPath(ids[i]))
		if errors.Is(err, fs.ErrNotExist) {
			continue // pruned meanwhile
		}
		if err != nil {
			return HistoryPage{}, err
		}
		page.Requests = append(page.Requests, r)
	}
	return page, nil
}

// ids lists the record ids in dirs, sorted, each once (one moved from
// open/ to history/ between the two listings is in both).
func (s *Store) ids(dirs ...string) ([]string, error) {
	var ids []string
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && validID(id) {
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return slices.Compact(ids), nil
}

// readAll reads the records of ids (skipping those gone meanwhile), oldest
// first.
func (s *Store) readAll(ids []string) ([]Request, error) {
	out := []Request{}
	for _, id := range ids {
		r, err := s.read(id)
		if err != nil {
			if errors.Is(err, ErrUnknown) {
				continue // pruned meanwhile
			}
			return nil, err
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Prune removes decided, expired and stale requests last changed before
// cutoff, and returns how many went. Pending requests someone still waits
// for are never removed.
func (s *Store) Prune(cutoff time.Time) (int, error) {
	all, err := s.List(Filter{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, seen := range all {
		err := s.lockRecord(seen.ID, func() error {
			// Read again under the lock: it may have changed since.
			r, err := s.read(seen.ID)
			if errors.Is(err, ErrUnknown) {
				return nil
			}
			if err != nil {
				return err
			}
			last := r.DecidedAt
			switch {
			case r.Status == Pending && !r.Stale(s.clock()):
				return nil
			case r.Status == Pending:
				last = r.Deadline
			}
			if last.IsZero() {
				last = r.Created
			}
			if !last.Before(cutoff) {
				return nil
			}
			for _, p := range []string{s.openPath(r.ID), s.historyPath(r.ID)} {
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
			n++
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	s.sweep(s.clock())
	return n, nil
}

// Watch returns a watcher that wakes when a request is queued, decided or
// answered (any change of open/). Re-read what you wait for after it
// wakes.
func (s *Store) Watch() (*DirWatcher, error) {
	if err := s.ensure(); err != nil {
		return nil, err
	}
	w, err := s.watch()
	if err != nil {
		return nil, err
	}
	return &DirWatcher{w: w}, nil
}

// Wait blocks until request id is no longer pending, and returns it. It
// returns ctx's error when ctx ends first (the request stays pending: call
// Expire). It wakes when its own record changes, not for every change of
// the queue: 300 waiters do not all re-read on each of 300 decisions.
func (s *Store) Wait(ctx context.Context, id string) (Request, error) {
	if err := s.check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Request{}, fmt.Errorf("%w: %s", ErrUnknown, id)
		}
		return Request{}, err
	}
	w := watchRecord()
	defer w.close()
	for {
		// Watch the file before reading it: nothing lands unseen. A
		// change replaces the file, so the watch is set again each time.
		w.arm(s.openPath(id))
		r, err := s.Get(id)
		if err != nil {
			return Request{}, err
		}
		if r.Status != Pending {
			return r, nil
		}
		if err := w.wait(ctx, s.Poll); err != nil {
			return Request{}, err
		}
	}
}

// WaitPending blocks until at least one request is pending (and not stale)
// and returns the pending requests, or returns an empty list when ctx ends.
func (s *Store) WaitPending(ctx context.Context) ([]Request, error) {
	if err := s.ensure(); err != nil {
		return nil, err
	}
	w, err := s.watch()
	if err != nil {
		return nil, err
	}
	defer w.close()
	for {
		rs, err := s.Pending()
		if err != nil || len(rs) > 0 {
			return rs, err
		}
		if err := w.wait(ctx, s.Poll); err != nil {
			return []Request{}, nil
		}
	}
}

// Changes calls fn after every change of the queue (and at least every
// Poll), until ctx ends or fn returns false. For live views (watch).
func (s *Store) Changes(ctx context.Context, fn func() bool) error {
	if err := s.ensure(); err != nil {
		return err
	}
	w, err := s.watch()
	if err != nil {
		return err
	}
	defer w.close()
	for fn() {
		if err := w.wait(ctx, s.Poll); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	return nil
}

// MinHookTimeout is the shortest client hook timeout that lets an
// `approve --timeout timeout` hook finish on its own: the timeout plus a
// margin for start-up, the queue lock and writing the reply. A client that
// kills the hook earlier runs the tool unapproved (Claude Code, Codex and
// Gemini CLI treat a killed hook as no decision), so install must configure
// at least this and doctor must flag less. Claude Code and Codex take the
// hook timeout in seconds, Gemini CLI in milliseconds: round up.
func MinHookTimeout(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return timeout + HookMargin
}

// DefaultTimeout is approve's default --timeout.
const DefaultTimeout = 5 * time.Minute

// HookMargin is what MinHookTimeout adds to approve's --timeout.
const HookMargin = 30 * time.Second

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
	"sort"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
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
	lockName   = ".lock"
	tempPrefix = ".tmp-"
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
	ID        string
	Client    string // the client's --client name (claude-code for its permission-prompt tool; Origin tells the routes apart)
	Session   string
	Tool      string
	Input     string // the tool arguments, raw JSON ("{}" when none)
	Created   time.Time
	Deadline  time.Time // when the waiting hook gives up; zero: never
	Status    Status
	Message   string // the decision's reason, shown to the model
	Updated   string // raw JSON of new arguments to run with (allow only); "" none
	DecidedBy string
	DecidedAt time.Time
	Origin    string // what enqueued it (e.g. "approve hook pid 123"); informational
	Chat      string // the child chat that asked (interceptor children), "" none
	ToolUseID string // the client's id of the call, when it sends one

	// Kind is "" for an approval (allow or deny) and KindInput for a human
	// tool's question, which a person answers with text (input.go).
	Kind        string
	Mode        string    // input: ModeHold or ModePark
	Answer      string    // input: the person's answer, once given
	DeliveredAt time.Time // input, park: when the answer went to the model
	DeliveredTo string    // input, park: what delivered it (the prompt hook, a chat)
}

// Stale reports a pending request whose waiter has given up (its deadline
// passed, e.g. the client killed the hook): nobody waits for a decision.
func (r Request) Stale(now time.Time) bool {
	return r.Status == Pending && !r.Deadline.IsZero() && now.After(r.Deadline.Add(5*time.Second))
}

// Decision is a supervisor's answer.
type Decision struct {
	Allow        bool
	Message      string
	UpdatedInput string // raw JSON object, allow only; "" none
	By           string // who decided, e.g. "cli", "mcp supervisor", "watch"
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

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// ensure creates (0700) and checks the state dir and the queue dir.
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

// check refuses an unsafe state or queue dir (see checkDir).
func (s *Store) check() error {
	for _, d := range []string{s.StateDir, s.Dir()} {
		if err := privfs.CheckDir(d); err != nil {
			return err
		}
	}
	return nil
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

func (s *Store) path(id string) string { return filepath.Join(s.Dir(), id+".json") }

// newID is a time prefix and 48 random bits from the runtime's generator
// (ChaCha8; crypto/rand would link math/big into every hook process for
// nothing: an id is a name, not a secret, and Enqueue refuses a duplicate).
func newID(now time.Time) (string, error) {
	var b [6]byte
	r := rand.Uint64()
	for i := range b {
		b[i] = byte(r >> (8 * i))
	}
	// A time prefix keeps ids roughly in creation order when listed.
	return fmt.Sprintf("%08x", uint32(now.Unix())) + hex.EncodeToString(b[:]), nil
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
	r.Message, r.Updated, r.DecidedBy, r.DecidedAt = "", "", "", time.Time{}
	if r.Input == "" || !gjson.Valid(r.Input) {
		r.Input = "{}"
	}
	r.Input = rawjson.OneLine(r.Input)
	err = s.locked(func() error {
		if _, err := os.Lstat(s.path(id)); err == nil {
			return fmt.Errorf("approval id %s already exists", id)
		}
		return s.write(r)
	})
	if err != nil {
		return Request{}, err
	}
	return r, nil
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
	r, err := readRequest(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return Request{}, fmt.Errorf("%w: %s", ErrUnknown, id)
	}
	return r, err
}

// Decide applies a decision to a pending request. It returns the request as
// stored afterwards. Deciding an unknown id is ErrUnknown; deciding a
// request that is no longer pending (decided, expired, or stale: its waiter
// gave up) is ErrDecided, with the stored request returned unchanged.
func (s *Store) Decide(id string, d Decision) (Request, error) {
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
			r.Updated = rawjson.OneLine(d.UpdatedInput)
		}
		r.Message, r.DecidedBy, r.DecidedAt = d.Message, d.By, now
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
		if r.Status == Pending {
			r.Status, r.DecidedBy, r.DecidedAt = Expired, by, s.clock()
		}
		out = *r
		return nil
	})
	return out, err
}

// update runs fn on a record under the lock and writes the result, unless
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
	return s.locked(func() error {
		r, err := readRequest(s.path(id))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s", ErrUnknown, id)
		}
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
	// stale).
	Pending bool
	// Limit keeps the newest Limit requests; 0 keeps all.
	Limit int
}

// List returns requests oldest first. A queue dir that does not exist yet
// is an empty list.
func (s *Store) List(f Filter) ([]Request, error) {
	if err := s.check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return []Request{}, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(s.Dir())
	if err != nil {
		return nil, err
	}
	now := s.clock()
	out := []Request{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validID(id) {
			continue
		}
		r, err := readRequest(filepath.Join(s.Dir(), e.Name()))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // pruned meanwhile
			}
			return nil, err
		}
		if f.Pending && (r.Status != Pending || r.Stale(now)) {
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
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
	now := s.clock()
	n := 0
	err = s.locked(func() error {
		for _, r := range all {
			last := r.DecidedAt
			switch {
			case r.Status == Pending && !r.Stale(now):
				continue
			case r.Status == Pending:
				last = r.Deadline
			}
			if last.IsZero() {
				last = r.Created
			}
			if !last.Before(cutoff) {
				continue
			}
			if err := os.Remove(s.path(r.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// Wait blocks until request id is no longer pending, and returns it. It
// returns ctx's error when ctx ends first (the request stays pending: call
// Expire).
func (s *Store) Wait(ctx context.Context, id string) (Request, error) {
	w, err := s.watch()
	if err != nil {
		return Request{}, err
	}
	defer w.close()
	for {
		// Read after the watch is set up: nothing lands unseen.
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
		rs, err := s.List(Filter{Pending: true})
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

func (s *Store) locked(fn func() error) error {
	return privfs.Locked(filepath.Join(s.Dir(), lockName), "approval queue", s.LockTimeout, fn)
}

func (s *Store) write(r Request) error {
	data, err := encode(r)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.Dir(), tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("writing approval record: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op once renamed
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing approval record: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("writing approval record: %w", err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path(r.ID)); err != nil {
		return fmt.Errorf("writing approval record: %w", err)
	}
	return nil
}

const timeFmt = time.RFC3339Nano

func encode(r Request) ([]byte, error) {
	out := []byte("{}")
	var err error
	set := func(k string, v any) {
		if err == nil {
			out, err = sjson.SetBytes(out, k, v)
		}
	}
	setRaw := func(k, v string) {
		if err == nil {
			out, err = sjson.SetRawBytes(out, k, []byte(v))
		}
	}
	tm := func(k string, t time.Time) {
		if !t.IsZero() {
			set(k, t.UTC().Format(timeFmt))
		}
	}
	set("id", r.ID)
	set("status", string(r.Status))
	set("client", r.Client)
	set("session", r.Session)
	set("tool", r.Tool)
	setRaw("input", r.Input)
	tm("created", r.Created)
	tm("deadline", r.Deadline)
	set("message", r.Message)
	if r.Updated != "" {
		setRaw("updated_input", r.Updated)
	}
	set("decided_by", r.DecidedBy)
	tm("decided_at", r.DecidedAt)
	set("origin", r.Origin)
	if r.Chat != "" {
		set("chat", r.Chat)
	}
	if r.ToolUseID != "" {
		set("tool_use_id", r.ToolUseID)
	}
	if r.Kind != "" {
		set("kind", r.Kind)
		set("mode", r.Mode)
		set("answer", r.Answer)
		tm("delivered_at", r.DeliveredAt)
		if r.DeliveredTo != "" {
			set("delivered_to", r.DeliveredTo)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("encoding approval record: %w", err)
	}
	// Records are what pending, history and show hand out: no raw control
	// or bidi character in them (see VisibleJSON).
	return append([]byte(VisibleJSON(string(out))), '\n'), nil
}

// JSON renders a request as the JSON object stored on disk.
func (r Request) JSON() string {
	b, err := encode(r)
	if err != nil {
		return "{}"
	}
	return strings.TrimSpace(string(b))
}

func readRequest(path string) (Request, error) {
	data, err := privfs.ReadFile(path, "approval record", maxRecord)
	if err != nil {
		return Request{}, err
	}
	return decode(path, data)
}

func decode(path string, data []byte) (Request, error) {
	if !gjson.ValidBytes(data) {
		return Request{}, fmt.Errorf("approval record %s: not valid JSON", path)
	}
	j := gjson.ParseBytes(data)
	tm := func(k string) time.Time {
		t, _ := time.Parse(timeFmt, j.Get(k).Str)
		return t
	}
	r := Request{
		ID:        j.Get("id").Str,
		Status:    Status(j.Get("status").Str),
		Client:    j.Get("client").Str,
		Session:   j.Get("session").Str,
		Tool:      j.Get("tool").Str,
		Input:     j.Get("input").Raw,
		Created:   tm("created"),
		Deadline:  tm("deadline"),
		Message:   j.Get("message").Str,
		Updated:   j.Get("updated_input").Raw,
		DecidedBy: j.Get("decided_by").Str,
		DecidedAt: tm("decided_at"),
		Origin:    j.Get("origin").Str,
		Chat:      j.Get("chat").Str,
		ToolUseID: j.Get("tool_use_id").Str,

		Kind:        j.Get("kind").Str,
		Mode:        j.Get("mode").Str,
		Answer:      j.Get("answer").Str,
		DeliveredAt: tm("delivered_at"),
		DeliveredTo: j.Get("delivered_to").Str,
	}
	switch r.Status {
	case Pending, Allowed, Denied, Expired, Answered, Delivered:
	default:
		return Request{}, fmt.Errorf("approval record %s: bad status %q", path, r.Status)
	}
	if r.ID+".json" != filepath.Base(path) {
		return Request{}, fmt.Errorf("approval record %s: id %q does not match its file name", path, r.ID)
	}
	if r.Input == "" {
		r.Input = "{}"
	}
	return r, nil
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

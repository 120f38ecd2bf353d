package approvals

// Input requests: a human tool's question (internal/humantools), answered by
// a person with text instead of allow or deny. They share the queue, its
// locks and its views with approvals, and add two statuses:
//
//	pending ──answer──> answered ──(park: the next prompt takes it)──> delivered
//	   └──timeout, session end──> expired <──session end── answered (park, undelivered)
//
// A held call (ModeHold) waits for its answer like the approve hook waits
// for a decision. A parked call (ModePark) returns at once; its answer is
// taken by the next prompt of the same session (TakeAnswers), under the
// request's lock, so of many concurrent prompt hooks exactly one delivers it.

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// KindInput marks a request that asks a person for an answer.
const KindInput = "input"

// Modes of an input request.
const (
	ModeHold = "hold" // the call waits for the answer
	ModePark = "park" // the call returns at once; the next turn gets the answer
)

// Statuses of input requests (besides Pending and Expired).
const (
	Answered  Status = "answered"
	Delivered Status = "delivered"
)

var (
	// ErrNeedsAnswer: allow or deny was given to a request that asks for
	// an answer.
	ErrNeedsAnswer = errors.New("request needs an answer")
	// ErrNotInput: an answer was given to an approval request.
	ErrNotInput = errors.New("request is an approval")
)

// IsInput reports whether r asks a person for an answer.
func (r Request) IsInput() bool { return r.Kind == KindInput }

// AnswerInput gives a pending input request its answer. Like Decide, an
// unknown id is ErrUnknown and a request no longer pending (answered,
// expired, its session ended, stale) is ErrDecided, returned unchanged. An
// answer its AnswerSchema does not allow is ErrBadAnswer, saying in one
// line what the answer must be, and the question still waits: every way
// an answer arrives comes here, so none skips the check.
func (s *Store) AnswerInput(id, answer, by string) (Request, error) {
	var out Request
	err := s.update(id, func(r *Request) error {
		out = *r
		now := s.clock()
		switch {
		case !r.IsInput():
			return fmt.Errorf("%w: %s asks for allow or deny, not an answer", ErrNotInput, id)
		case r.Status != Pending:
			return fmt.Errorf("%w: %s is %s (by %s)", ErrDecided, id, r.Status, r.DecidedBy)
		case r.Stale(now):
			return fmt.Errorf("%w: %s expired at %s; nobody waits for an answer any more", ErrDecided, id, r.Deadline.Format(time.RFC3339))
		}
		if err := CheckAnswer(r.AnswerSchema, answer); err != nil {
			return fmt.Errorf("%w: %v", ErrBadAnswer, err)
		}
		r.Status, r.Answer, r.DecidedBy, r.DecidedAt = Answered, answer, by, now
		out = *r
		return nil
	})
	return out, err
}

// BindInput records the session of a parked request. An MCP server is not
// told its client's session by every client (and a session id taken from
// its environment can go stale); the client's post-tool hook, which sees
// the parked result, is, so its word wins. A request already delivered or
// expired is left as it is.
func (s *Store) BindInput(id, session string) (Request, error) {
	if session == "" {
		return Request{}, errors.New("binding a human tool request needs a session id")
	}
	var out Request
	err := s.update(id, func(r *Request) error {
		out = *r
		switch {
		case !r.IsInput() || r.Mode != ModePark:
			return fmt.Errorf("%s is not a parked human tool request", id)
		case r.Session == session || r.Status != Pending && r.Status != Answered:
			return errNoChange
		}
		r.Session = session
		out = *r
		return nil
	})
	if errors.Is(err, errNoChange) {
		err = nil
	}
	return out, err
}

var errNoChange = errors.New("no change")

// TakeAnswers marks every answered, not yet delivered parked request that
// match accepts as delivered to `to`, and returns them oldest first. The
// marking happens under each request's lock: of concurrent callers,
// exactly one gets each answer. A queue that does not exist yet holds nothing.
func (s *Store) TakeAnswers(match func(Request) bool, to string) ([]Request, error) {
	return s.settleInputs(func(r Request) bool {
		return r.Status == Answered && r.Mode == ModePark && match(r)
	}, func(r *Request, now time.Time) {
		r.Status, r.DeliveredAt, r.DeliveredTo = Delivered, now, to
	})
}

// EndInputs expires the input requests match accepts that can no longer
// reach their session: pending ones (an answer would find nobody) and
// parked answers not delivered yet. It returns them, oldest first. For a
// session's end (`interceptor deliver` on a session-end event).
func (s *Store) EndInputs(match func(Request) bool, by string) ([]Request, error) {
	return s.settleInputs(func(r Request) bool {
		return (r.Status == Pending || r.Status == Answered && r.Mode == ModePark) && match(r)
	}, func(r *Request, now time.Time) {
		r.Status = Expired
		if r.Answer == "" {
			r.DecidedBy, r.DecidedAt = by, now
		} else {
			r.DeliveredTo = "nobody: " + by
		}
	})
}

// settleInputs applies change to every open input request want accepts
// (pending, or answered and parked), each under its lock, and returns the changed
// requests oldest first. It reads open/ once without a lock first, so a
// prompt hook with nothing to deliver never takes one, and never reads the
// history.
func (s *Store) settleInputs(want func(Request) bool, change func(*Request, time.Time)) ([]Request, error) {
	if err := s.check(); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	all, err := s.listOpen()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range all {
		if r.IsInput() && want(r) {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var out []Request
	for _, id := range ids {
		err := s.lockRecord(id, func() error {
			r, err := readRequest(s.openPath(id))
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if !r.IsInput() || !want(r) { // another process got there first
				return nil
			}
			change(&r, s.clock())
			if err := s.write(r); err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// FindInput returns the id of the first input request named in text by
// InputMarker, or "".
func FindInput(text string) string {
	const open = "[human request "
	for {
		i := strings.Index(text, open)
		if i < 0 {
			return ""
		}
		text = text[i+len(open):]
		if j := strings.IndexByte(text, ']'); j > 0 && validID(text[:j]) {
			return text[:j]
		}
	}
}

// InputMarker names an input request inside a tool result, for FindInput.
func InputMarker(id string) string { return "[human request " + id + "]" }

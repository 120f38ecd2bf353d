package children

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Status is where a chat is.
type Status string

const (
	Running            Status = "running"
	AwaitingPermission Status = "awaiting_permission"
	Complete           Status = "complete"
	Failed             Status = "failed"
)

const (
	eventsFile = "events.jsonl"
	promptFile = "prompt.json"
	runnerFile = "runner.json"
	runnerLock = "runner.lock"
	runnerLog  = "runner.log"
	maxEvents  = 256 << 20
	// startGrace is how long a chat may wait for its runner to take its
	// lock before it counts as failed to start.
	startGrace = 30 * time.Second
)

// Chat is one chat of a child: one prompt, one run of the client.
type Chat struct {
	s     *Store
	Child Child
	N     int
	ID    string
}

// Event is one line of a chat's log.
type Event struct {
	Seq   int
	Time  time.Time
	Event string // the normalized event, a JSON object with "type"
}

// EventRecord is an event as the log holds it and poll shows it.
type EventRecord struct {
	Seq   int             `json:"seq"`
	Time  string          `json:"time"`
	Event json.RawMessage `json:"event"` // the normalized event, a JSON object with "type"
}

func (e Event) record() EventRecord {
	return EventRecord{Seq: e.Seq, Time: e.Time.UTC().Format(timeFmt), Event: json.RawMessage(e.Event)}
}

// JSON renders the event as {"seq":…,"time":…,"event":{…}}; an error
// when Event is not one JSON value.
func (e Event) JSON() (string, error) {
	b, err := rawjson.Marshal(e.record())
	if err != nil {
		return "", fmt.Errorf("encoding event %d: %w", e.Seq, err)
	}
	return string(b), nil
}

// Chat opens chat id ("<child id>-<n>").
func (s *Store) Chat(id string) (*Chat, error) {
	child, n, err := ParseChatID(id)
	if err != nil {
		return nil, err
	}
	c, err := s.Get(child)
	if err != nil {
		return nil, err
	}
	if n > c.Chats {
		return nil, fmt.Errorf("%w: chat %s (child %s has %d chats)", ErrUnknown, id, c.Name, c.Chats)
	}
	return &Chat{s: s, Child: c, N: n, ID: id}, nil
}

// Dir is the chat's directory.
func (c *Chat) Dir() string {
	return filepath.Join(c.s.childDir(c.Child.ID), "chat-"+strconv.Itoa(c.N))
}

func (c *Chat) path(name string) string { return filepath.Join(c.Dir(), name) }

// Prompt is what the chat runs.
type Prompt struct {
	Text    string
	Created time.Time
}

// promptRecord is a chat's prompt as stored (prompt.json).
type promptRecord struct {
	Prompt  string `json:"prompt"`
	Created string `json:"created"`
}

// Prompt reads the chat's prompt.
func (c *Chat) Prompt() (Prompt, error) {
	data, err := privfs.ReadFile(c.path(promptFile), "chat prompt", maxFile)
	if err != nil {
		return Prompt{}, err
	}
	j := gjson.ParseBytes(data)
	t, _ := time.Parse(timeFmt, j.Get("created").Str)
	return Prompt{Text: j.Get("prompt").Str, Created: t}, nil
}

// RunnerInfo is what a runner records about itself and the client it runs.
type RunnerInfo struct {
	RunnerPID  int
	ClientPGID int // the client's process group (its pid); 0 until started
	// ClientStart is when the client started (Linux: clock ticks after
	// boot); 0 unknown. Whoever ends the group later checks it is still
	// this one (groupIsChats): its id may have gone to a stranger since.
	ClientStart uint64
	Started     time.Time
	// Failure is why the runner ended a chat whose end it could not
	// write in the log; "" none.
	Failure string
}

// killGroup ends what is left of the chat's client: its process group, if
// the group is still the one this runner started.
func (r RunnerInfo) killGroup(chatID string) {
	if r.ClientPGID > 1 && groupIsChats(r.ClientPGID, r.ClientStart, chatID) {
		killGroup(r.ClientPGID, hardKill)
	}
}

// runnerRecord is RunnerInfo as stored (runner.json). ClientStart is a
// decimal string: a JSON number loses a uint64's precision in readers that
// take numbers as doubles.
type runnerRecord struct {
	RunnerPID   int    `json:"runner_pid"`
	ClientPGID  int    `json:"client_pgid"`
	ClientStart string `json:"client_start,omitempty"`
	Started     string `json:"started"`
	Failure     string `json:"failure,omitempty"`
}

func (c *Chat) writeRunner(r RunnerInfo) error {
	rec := runnerRecord{RunnerPID: r.RunnerPID, ClientPGID: r.ClientPGID, Started: r.Started.UTC().Format(timeFmt), Failure: r.Failure}
	if r.ClientStart != 0 {
		rec.ClientStart = strconv.FormatUint(r.ClientStart, 10)
	}
	return writeRecord(c.path(runnerFile), "chat runner record", rec)
}

// Runner reads what the runner recorded; fs.ErrNotExist before it started.
func (c *Chat) Runner() (RunnerInfo, error) {
	data, err := privfs.ReadFile(c.path(runnerFile), "chat runner record", maxFile)
	if err != nil {
		return RunnerInfo{}, err
	}
	j := gjson.ParseBytes(data)
	t, _ := time.Parse(timeFmt, j.Get("started").Str)
	start, _ := strconv.ParseUint(j.Get("client_start").Str, 10, 64)
	return RunnerInfo{RunnerPID: int(j.Get("runner_pid").Int()), ClientPGID: int(j.Get("client_pgid").Int()), ClientStart: start, Started: t,
		Failure: j.Get("failure").Str}, nil
}

// runnerAlive reports whether a runner holds the chat's runner lock. A
// long poll asks this on each wake of its watch of the chat dir: Held only
// reads, so the probe does not wake the poll again.
func (c *Chat) runnerAlive() bool {
	return privfs.Held(c.path(runnerLock))
}

// Append adds normalized events to the log under the chat's lock and
// returns the first seq given.
func (c *Chat) Append(events ...string) (int, error) {
	first := -1
	err := c.s.locked(c.path(lockName), func() error {
		var err error
		first, err = c.appendLocked(events...)
		return err
	})
	return first, err
}

// terminal returns the status of a log whose last event is "complete".
func terminal(evs []Event) (Status, bool) {
	if len(evs) == 0 {
		return "", false
	}
	last := gjson.Parse(evs[len(evs)-1].Event)
	if last.Get("type").Str != "complete" {
		return "", false
	}
	if last.Get("status").Str == string(Complete) {
		return Complete, true
	}
	return Failed, true
}

// State is the chat's status without approvals: complete or failed once the
// log ends, else running. A chat whose runner is gone without finishing is
// marked failed here, once, with a complete event saying so.
func (c *Chat) State() (Status, error) {
	last, err := c.lastEvent()
	if err != nil {
		return "", err
	}
	if st, ok := terminal(last); ok {
		return st, nil
	}
	if c.runnerAlive() {
		return Running, nil
	}
	ri, rerr := c.Runner()
	if errors.Is(rerr, fs.ErrNotExist) {
		p, perr := c.Prompt()
		if perr == nil && time.Since(p.Created) < startGrace {
			return Running, nil // its runner is starting
		}
	}
	why := "the runner process died without finishing the chat"
	if rerr == nil {
		why = fmt.Sprintf("the runner process (pid %d) died without finishing the chat", ri.RunnerPID)
		if ri.Failure != "" {
			why = ri.Failure
		}
		// Its client is orphaned: end it with the chat.
		ri.killGroup(c.ID)
	} else if errors.Is(rerr, fs.ErrNotExist) {
		why = "the runner process never started"
	}
	return c.finish(Failed, why, "")
}

// finish appends the closing complete event unless the log has one, and
// returns the chat's final status. Approvals of the chat still pending are
// denied: a hook can outlive the client's process group (Codex 0.169.0's
// approve hook did) and would wait out its timeout.
func (c *Chat) finish(st Status, errText, result string) (Status, error) {
	defer c.settlePending(st, errText)
	var out Status
	err := c.s.locked(c.path(lockName), func() error {
		last, err := c.lastEvent()
		if err != nil {
			return err
		}
		if got, ok := terminal(last); ok {
			out = got
			return nil
		}
		out = st
		end, err := encodeEvents([]Normalized{completed(nil, st, result, errText)})
		if err != nil {
			return err
		}
		_, err = c.appendLocked(end...)
		return err
	})
	return out, err
}

// settlePending denies the chat's approvals still waiting once it ended.
// A human tool's question stays: a parked one's answer goes to the next
// chat.
func (c *Chat) settlePending(st Status, why string) {
	q := approvals.New(c.s.StateDir)
	pending, err := PendingFor(q, c.ID)
	if err != nil {
		return
	}
	msg := "the chat " + string(st) + " before this call was decided"
	if why != "" {
		msg += ": " + why
	}
	for _, r := range pending {
		if !r.IsInput() {
			q.Decide(r.ID, hooks.Decision{Reason: msg, By: "interceptor children"})
		}
	}
}

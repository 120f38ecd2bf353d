// Package approvals is the durable approval queue: one JSON record per
// request under <state dir>/approvals/, shared by every process of the user
// (the hooks that wait, the supervisors that decide).
//
// The package in files: store.go is the queue (Enqueue, Get, Decide,
// Expire, Pending, History, List, Wait, Watch, Prune); record.go its
// records on disk (record, encoded with encoding/json, read back with
// gjson); ask.go is the one way a tool call is decided (Store.Ask: rules,
// else a queued request and its wait), used by the approve hook and the
// MCP permit tool alike; gate.go is the approve hook's policy around it
// (its flags' Rules, Gate), which fails closed (FailedDeny, UnreadDeny);
// rules.go the standing rules, "always allow" or "always deny" a shape of
// call in a scope, which Ask applies before it queues anything (Rule,
// AddRule, RevokeRule, RuleFor). A decision is one type all the way,
// hooks.Decision: a supervisor's to Decide, the one Ask returns
// (Request.Decision maps a decided record back to it); input.go
// is the human tools' questions, answered with text, on the same queue, and
// answer.go what an answer must be (a tool's answerSchema, checked by
// AnswerInput whichever way the answer came);
// secrets.go keeps the child's tokens out of records (stand-ins), gives
// them back to a supervisor's new input, and masks views again (Viewer);
// view.go renders what the model wrote for a person (Visible, VisibleJSON,
// InputLines); who.go names the deciding process (Decider); watch_*.go wake
// waiters (inotify, else a poll: sleep.go; WatchUnavailable says why a wait
// polls, e.g. no inotify instance left), and dirwatch.go lends that to
// other packages (DirWatcher).
//
// Layout (dirs 0700, files 0600, never symlinks, owned by the user):
//
//	approvals/open/<id>.json      a request someone waits on: pending, or a
//	                              parked question's answer not yet delivered
//	approvals/history/<id>.json   every other request, with its decision
//	approvals/<id>.lock           one request's lock, while it is changed
//	approvals/.lock               taken shared by every change, whole by
//	                              the migration (and by earlier versions)
//	approvals/rules.json          the standing rules (rules.go), changed
//	                              under approvals/.rules.lock
//
// No lock serializes the queue (write.go). A new request is written whole
// to a temp file beside open/ and linked into it under a fresh id: no lock,
// and never over another record. A record is changed only under its own
// lock, by writing a temp file and renaming it over the old one, so a
// reader (which takes no lock) sees the old or the new record, never a
// torn one; a request no longer open then moves to history/ by one more
// rename. Pending, the prompt hook's delivery and the long polls read open/
// only, so their cost does not grow with the history. The one-dir layout of
// earlier versions (approvals/<id>.json) is migrated on first use
// (migrate). A decision and a waiter's timeout race under the request's
// lock: exactly one of them wins, and a second decision is reported, never
// applied.
//
// A waiter (Wait) wakes when its own record's file changes (inotify on the
// file on Linux, a 50 ms poll elsewhere), not for every request of the
// queue, and reads its record once more after the watch is set, so a
// decision landing between enqueue and watch is never missed. Live views
// (Watch, WaitPending, Changes) wake on any change of open/.
package approvals

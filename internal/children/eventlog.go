package children

// The event log (events.jsonl): one line per event,
// {"seq":…,"time":…,"event":{…}}, seq from 0 up, appended under the chat's
// lock. Readers take no lock and never read the whole log to answer: the
// tail gives the last event (and so the total), and the line of a seq is
// found by bisection on seq, or where the last read of this chat stopped
// (Store.offsets). A poll with nothing new reads a few KiB at any length.
//
// A write cut short (ENOSPC, a file size limit, a killed writer) leaves a
// line without its newline. Readers take such a tail for a line being
// written and leave it; the next append cuts it off first, so an append
// always starts on a fresh line and one torn write never spoils the lines
// after it. A line that is not an event (what earlier versions left by
// appending onto a torn tail) is skipped.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/tidwall/gjson"
)

const (
	// tailChunk is the first read from the end of the log; it doubles
	// while the last event's line does not fit.
	tailChunk = 8 << 10
	// scanWindow is where bisection stops and the rest is read at once.
	scanWindow = 16 << 10
)

// offsets remembers, per chat, where the last read stopped: the offset of
// the line of seq (the end of the log when seq is the total). A long poll
// asks for what follows what it read last, which is then one read away.
type offsets struct {
	mu sync.Mutex
	m  map[string][2]int64 // chat id: seq, offset
}

func (o *offsets) get(chat string) (seq int, off int64, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, ok := o.m[chat]
	return int(v[0]), v[1], ok
}

func (o *offsets) put(chat string, seq int, off int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string][2]int64{}
	}
	o.m[chat] = [2]int64{int64(seq), off}
}

// parseEvent reads one line of the log; ok false for a line that is not an
// event.
func parseEvent(line []byte) (Event, bool) {
	if !gjson.ValidBytes(line) {
		return Event{}, false
	}
	j := gjson.ParseBytes(line)
	seq := j.Get("seq")
	if seq.Type != gjson.Number {
		return Event{}, false
	}
	t, _ := time.Parse(timeFmt, j.Get("time").Str)
	return Event{Seq: int(seq.Int()), Time: t, Event: j.Get("event").Raw}, true
}

// openLog opens the log for reading; ok false when there is none yet.
func (c *Chat) openLog() (*os.File, int64, bool, error) {
	f, err := privfs.OpenFile(c.path(eventsFile), "chat event log")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, false, err
	}
	return f, st.Size(), true, nil
}

// tail returns the last event of the log (ok false: none) and end, the
// offset just after the last complete line: what follows it is a torn
// write, or one being written.
func tail(f io.ReaderAt, size int64) (last Event, ok bool, end int64, err error) {
	for chunk := int64(tailChunk); ; chunk *= 2 {
		from := max(size-chunk, 0)
		b := make([]byte, size-from)
		n, err := f.ReadAt(b, from)
		if err != nil && !errors.Is(err, io.EOF) {
			return Event{}, false, 0, err
		}
		b = b[:n]
		nl := bytes.LastIndexByte(b, '\n')
		if nl < 0 {
			if from == 0 {
				return Event{}, false, 0, nil
			}
			continue
		}
		end = from + int64(nl) + 1
		// The lines of the chunk from the last back; the first one may
		// start before the chunk.
		body := b[:nl]
		for {
			i := bytes.LastIndexByte(body, '\n')
			if i < 0 && from > 0 {
				break // its start is before the chunk: read more
			}
			if ev, ok := parseEvent(body[i+1:]); ok {
				return ev, true, end, nil
			}
			if i < 0 {
				return Event{}, false, end, nil // not one event in the log
			}
			body = body[:i]
		}
		if from == 0 {
			return Event{}, false, end, nil
		}
	}
}

// lineAt reads the complete line starting at off, without its newline, and
// the offset after it; ok false when no complete line starts there.
func lineAt(f io.ReaderAt, off, size int64) (line []byte, next int64, ok bool, err error) {
	for chunk, pos := int64(1<<10), off; pos < size; chunk = min(chunk*2, 1<<20) {
		b := make([]byte, min(chunk, size-pos))
		n, err := f.ReadAt(b, pos)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, false, err
		}
		if i := bytes.IndexByte(b[:n], '\n'); i >= 0 {
			return append(line, b[:i]...), pos + int64(i) + 1, true, nil
		}
		if n == 0 {
			break
		}
		line = append(line, b[:n]...)
		pos += int64(n)
	}
	return nil, size, false, nil
}

// eventAfter reads the first event whose line starts at or after off and
// before limit: its offset, the offset after it, ok false when none.
func eventAfter(f io.ReaderAt, off, limit, size int64) (Event, int64, int64, bool, error) {
	for off < limit {
		line, next, ok, err := lineAt(f, off, size)
		if err != nil || !ok {
			return Event{}, 0, 0, false, err
		}
		if ev, ok := parseEvent(line); ok {
			return ev, off, next, true, nil
		}
		off = next
	}
	return Event{}, 0, 0, false, nil
}

// offsetOf is the offset of the first event with a seq of at least seq, or
// end when there is none: bisection on seq, O(log n) lines read.
func offsetOf(f io.ReaderAt, seq int, end int64) (int64, error) {
	// Every event before lo has a smaller seq; hi is a line start (or end)
	// with no event of a smaller seq at or after it.
	lo, hi := int64(0), end
	for hi-lo > scanWindow {
		mid := lo + (hi-lo)/2
		// The first line starting after mid.
		_, start, ok, err := lineAt(f, mid, end)
		if err != nil {
			return 0, err
		}
		if !ok || start >= hi {
			break
		}
		ev, at, next, ok, err := eventAfter(f, start, hi, end)
		if err != nil {
			return 0, err
		}
		switch {
		case !ok:
			hi = start // lines from start to hi hold no event
		case ev.Seq < seq:
			lo = next
		default:
			hi = at
		}
	}
	if hi-lo <= 1<<20 {
		return scan(f, seq, lo, hi)
	}
	for lo < hi { // a window of long lines: one at a time
		ev, at, next, ok, err := eventAfter(f, lo, hi, end)
		if err != nil {
			return 0, err
		}
		if !ok {
			return hi, nil
		}
		if ev.Seq >= seq {
			return at, nil
		}
		lo = next
	}
	return hi, nil
}

// scan reads the lines from lo to hi (a line start, or the end of the
// complete lines) at once and returns the offset of the first whose seq is
// at least seq, or hi. It reads each line's seq without checking the rest:
// a line that is not an event can only make it stop early, and Events,
// which reads on from here, skips what is not an event before from.
func scan(f io.ReaderAt, seq int, lo, hi int64) (int64, error) {
	b := make([]byte, hi-lo)
	n, err := f.ReadAt(b, lo)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	for off, rest := lo, b[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		if v := gjson.GetBytes(rest[:i], "seq"); v.Type == gjson.Number && int(v.Int()) >= seq {
			return off, nil
		}
		off, rest = off+int64(i)+1, rest[i+1:]
	}
	return hi, nil
}

// lastEvent reads the last event of the log, if any (reading only its
// tail).
func (c *Chat) lastEvent() ([]Event, error) {
	f, size, ok, err := c.openLog()
	if err != nil || !ok {
		return []Event{}, err
	}
	defer f.Close()
	last, ok, _, err := tail(f, size)
	if err != nil || !ok {
		return []Event{}, err
	}
	return []Event{last}, nil
}

// Total is the number of events in the log: the last one's seq, plus one.
func (c *Chat) Total() (int, error) {
	evs, err := c.lastEvent()
	if err != nil || len(evs) == 0 {
		return 0, err
	}
	return evs[0].Seq + 1, nil
}

// Events reads the log from seq from; limit 0 reads to the end. It reads
// from the line of from on, found where the last read of this chat stopped
// or by bisection: never the events before it.
func (c *Chat) Events(from, limit int) ([]Event, error) {
	f, size, ok, err := c.openLog()
	if err != nil || !ok {
		return []Event{}, err
	}
	defer f.Close()
	_, _, end, err := tail(f, size)
	if err != nil {
		return nil, err
	}
	off := int64(-1)
	if seq, at, ok := c.s.offsets.get(c.ID); ok && seq == from && at <= end {
		// Still the line of from (or the end, when nothing follows)?
		switch line, _, ok, err := lineAt(f, at, end); {
		case err != nil:
			return nil, err
		case !ok && at == end:
			off = at
		case ok:
			if ev, isEv := parseEvent(line); isEv && ev.Seq == from {
				off = at
			}
		}
	}
	if off < 0 {
		if off, err = offsetOf(f, from, end); err != nil {
			return nil, err
		}
	}
	out := []Event{}
	br := bufio.NewReaderSize(io.NewSectionReader(f, off, end-off), int(min(max(end-off, 16), 64<<10)))
	for limit <= 0 || len(out) < limit {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: the rest of it, whole (copy
			// first: the next read reuses the buffer line points into).
			head := append([]byte(nil), line...)
			var rest []byte
			rest, err = br.ReadBytes('\n')
			line = append(head, rest...)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("chat %s: reading the event log: %w", c.ID, err)
		}
		off += int64(len(line))
		if ev, ok := parseEvent(line[:len(line)-1]); ok && ev.Seq >= from {
			out = append(out, ev)
		}
	}
	next := from
	if len(out) > 0 {
		next = out[len(out)-1].Seq + 1
	}
	c.s.offsets.put(c.ID, next, off)
	return out, nil
}

// appendLocked writes events after the log's last one (the caller holds
// the chat's lock) and returns the first seq given. A torn tail is cut off
// first. The file is opened, written and closed, which wakes the readers'
// watches (IN_CLOSE_WRITE).
func (c *Chat) appendLocked(events ...string) (int, error) {
	f, err := os.OpenFile(c.path(eventsFile), os.O_RDWR|os.O_APPEND|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return 0, fmt.Errorf("chat %s: opening the event log: %w", c.ID, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("chat %s: the event log is not a regular file", c.ID)
	}
	last, ok, end, err := tail(f, st.Size())
	if err != nil {
		return 0, fmt.Errorf("chat %s: reading the event log: %w", c.ID, err)
	}
	if end < st.Size() {
		if err := f.Truncate(end); err != nil {
			return 0, fmt.Errorf("chat %s: cutting a torn write off the event log: %w", c.ID, err)
		}
	}
	seq := 0
	if ok {
		seq = last.Seq + 1
	}
	var buf bytes.Buffer
	now := time.Now()
	for i, ev := range events {
		line, err := Event{Seq: seq + i, Time: now, Event: ev}.JSON()
		if err != nil {
			return 0, fmt.Errorf("chat %s: %w", c.ID, err)
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return 0, fmt.Errorf("chat %s: writing the event log: %w", c.ID, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("chat %s: writing the event log: %w", c.ID, err)
	}
	return seq, nil
}

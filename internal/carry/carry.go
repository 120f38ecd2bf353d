package carry

import (
	"fmt"
	"slices"

	"github.com/interceptor-dev/interceptor/internal/token"
)

// Holder keeps what one client session holds of one server's handles:
// hook mode's is the state store (each hook is a process of its own),
// proxy mode's the connection's memory (written through to the store with
// --persist).
type Holder interface {
	// Update runs fn on a copy of what is held, which fn may change in
	// place and reports whether it did; a changed copy is kept. fn may run
	// more than once (a store retries when another writer got there
	// first): it must depend only on what it is given.
	Update(fn func(h token.Holding) (changed bool)) error
}

// Resume is what a stored record holds of the specs' handles, given the
// record's Live of each (state.Record.Live): a record written before
// handles answers for the one handle of flag mode.
func Resume(specs []token.Spec, live func(name string) token.Live) token.Holding {
	h := token.Holding{}
	for _, s := range specs {
		if l := live(s.Name); len(l.Values) > 0 || l.Withdrawn != "" {
			h[s.Name] = l
		}
	}
	return h
}

// Same reports whether two Lives hold the same.
func Same(a, b token.Live) bool {
	return a.Default == b.Default && a.Withdrawn == b.Withdrawn && a.MetaSeen == b.MetaSeen && slices.Equal(a.Values, b.Values)
}

// Starts reports whether tool starts any of the specs' handles over.
func Starts(specs []token.Spec, tool string) bool {
	return slices.ContainsFunc(specs, func(s token.Spec) bool { return s.StartedBy(tool) })
}

// Retire retires, when tool starts a handle over, the value held for it
// (token.Spec.Starting): the value the start's result mints takes its
// place, and when no result comes back (a failed call: Codex runs no
// post-tool hook for it) nothing older is injected after it. Most calls
// start nothing: then hd is not even read.
func Retire(hd Holder, specs []token.Spec, tool string) error {
	if !Starts(specs, tool) {
		return nil
	}
	return hd.Update(func(h token.Holding) bool {
		changed := false
		for i := range specs {
			if l, ok := specs[i].Starting(h[specs[i].Name], tool); ok {
				h[specs[i].Name], changed = l, true
			}
		}
		return changed
	})
}

// Taking is what one result of a tool offers each handle, read once
// (Read) and applied to what is held (Apply) as often as a Holder's
// Update runs its function.
type Taking struct {
	specs []token.Spec
	tool  string
	each  []offer // by spec
}

// offer is what the result offers one handle, and what the call carried.
type offer struct {
	read    token.Reading
	carried string
}

// Read reads tool's result r for each of the specs' handles; carried[i]
// is the value the call itself passed in spec i's argument ("" or a nil
// carried when none; an echo of it is not a new value, token.Spec.Apply).
func Read(specs []token.Spec, tool string, r token.Result, carried []string) Taking {
	t := Taking{specs: specs, tool: tool, each: make([]offer, len(specs))}
	for i := range specs {
		t.each[i].read = specs[i].Read(tool, r)
		if i < len(carried) {
			t.each[i].carried = carried[i]
		}
	}
	return t
}

// Taken is what applying a result did.
type Taken struct {
	// Notes are one line each for the user, when something was refused or
	// withdrawn; they never hold a value.
	Notes []string
	// Captured are the handles the result gave values, in the specs' order.
	Captured []Captured
}

// Captured is what a result gave one handle. It holds a value: only its
// String (masked) is ever shown.
type Captured struct {
	Handle string
	Count  int
	first  string
	Where  token.Where
}

// String says how many values were captured, the first masked, and where.
func (c Captured) String() string {
	return fmt.Sprintf("captured %d %s value(s), the first %s, from %s", c.Count, c.Handle, token.Mask(c.first), c.Where)
}

// Apply applies the result to h in place (token.Spec.Apply): new values
// are held, a start tool that returns none retires the one held before,
// and once _meta has carried a handle's value no prose line is read for
// it (token.Reading.For). It reports whether h changed.
func (t *Taking) Apply(h token.Holding, taken *Taken) (changed bool) {
	*taken = Taken{}
	for i := range t.specs {
		s := &t.specs[i]
		before := h[s.Name]
		m, err := t.each[i].read.For(before)
		after, note := s.Apply(before, t.tool, m, err, t.each[i].carried)
		if note != "" {
			taken.Notes = append(taken.Notes, note)
		}
		if len(m.Values) > 0 {
			taken.Captured = append(taken.Captured, Captured{Handle: s.Name, Count: len(m.Values), first: m.Values[0], Where: m.Where})
		}
		if !Same(before, after) {
			h[s.Name], changed = after, true
		}
	}
	return changed
}

// Take reads tool's result r and applies it to what hd holds, once (see
// Read, Apply).
func Take(hd Holder, specs []token.Spec, tool string, r token.Result, carried []string) (Taken, error) {
	t := Read(specs, tool, r, carried)
	var taken Taken
	err := hd.Update(func(h token.Holding) bool { return t.Apply(h, &taken) })
	return taken, err
}

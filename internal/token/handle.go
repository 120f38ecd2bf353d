package token

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// A handle is a value a server mints and a later call must pass back: a
// session token, a session index, a process id, a search session, a cursor.
// Spec says what one handle is; every handle of a server is carried by the
// same code in hook mode and proxy mode.

// Kind is the JSON type a handle's values are injected as.
type Kind uint8

const (
	KindString Kind = iota // injected as a JSON string
	KindNumber             // injected as a JSON number
)

func (k Kind) String() string {
	if k == KindNumber {
		return "number"
	}
	return "string"
}

// Lifetime says which held value a call that names none gets.
type Lifetime uint8

const (
	// Rotates: each value minted replaces the one before as the one
	// injected (a session token the server renews with every result). The
	// earlier ones stay nameable by stand-in.
	Rotates Lifetime = iota
	// Stable: the value a Starts tool minted stays the one injected until a
	// Starts tool mints another (a session's index). Values other tools
	// mint (a dispatched child's index) are live, and reach a call that
	// names them, but are never injected unasked.
	Stable
)

func (l Lifetime) String() string {
	if l == Stable {
		return "stable"
	}
	return "rotates"
}

// Source is one place in a tool result a handle's values come from.
type Source struct {
	// Tools limits the source to the results of these tools (the tool's own
	// name, without the server prefix); empty: every tool of the server.
	Tools []string
	// Meta, JSON and Line are read together, as one server's channels for
	// one value (see Choose): _meta.<Meta> wins outright; a value under the
	// JSON path in structuredContent or in a text block that is a JSON
	// object, and a text line that is nothing but `<Line>: <value>`, must
	// agree. Values under Meta and JSON are the server's own and are taken
	// as they are; values from lines are prose and must look like a token
	// (Rules).
	Meta, JSON, Line string
	// Text, when set, is a regular expression with one group, matched over
	// every text block: each match's group is a value (a result may mint
	// several, e.g. element uids). It is used alone, not with Meta, JSON or
	// Line.
	Text *regexp.Regexp
}

func (s Source) covers(tool string) bool {
	return len(s.Tools) == 0 || slices.Contains(s.Tools, tool)
}

// Spec is one handle of a server.
type Spec struct {
	// Name is the handle's name: the label of its stand-ins, the key it is
	// stored under, and what messages call it.
	Name string
	// Arg is the tool argument the handle goes into.
	Arg      string
	Kind     Kind
	Lifetime Lifetime
	// From lists the sources in order; the first that yields a value is
	// used.
	From []Source
	// Starts are the tools that start the handle over (start_session,
	// start_process): the value one mints becomes the one injected, and
	// when one returns without a value, the value held before is no longer
	// injected (never a stale value: it belonged to what came before).
	Starts []string
	// To and ToMatch name the tools that take the handle. Both empty: in
	// hook mode every tool of the server but Skip; in proxy mode the tools
	// whose input schema has Arg (learned from tools/list).
	To      []string
	ToMatch *regexp.Regexp
	// Skip are tools never given the handle.
	Skip []string
	// KeepIf are arguments that, present in a call, mean it needs no
	// handle injected (Arg itself always counts).
	KeepIf []string
	// Pattern, when set, is what a value must match whole; it replaces the
	// shape rules for values read from prose (MinLen, letters and digits).
	Pattern *regexp.Regexp
	// MinLen is the shortest value read from a prose line (0:
	// DefaultMinLen); it does not apply to values under a declared key.
	MinLen int
	// StandIns says which values the model reads only as stand-ins.
	StandIns StandIns
	// Repair says which held values a near miss is repaired to
	// (nearmiss.go).
	Repair Repair
	// Inject says which calls that name no value get the one held.
	Inject InjectWhen
}

// InjectWhen says where a call that names none of a handle's values gets the
// one held. An optional argument's absence can mean something of its own
// (a screenshot of the whole page rather than of an element, the first
// page of a list): filling it in there changes what the call does.
type InjectWhen uint8

const (
	// InjectAlways: every call of a tool that takes the handle. The flags'
	// one handle (a session token that every tool of the server needs,
	// whatever its schema says) and a file's "inject": "always".
	InjectAlways InjectWhen = iota
	// InjectRequired: only where leaving the argument out means nothing
	// else: the tool's input schema lists it as required, or, where no
	// schema is known (hooks; the proxy before tools/list), "to" names
	// the tool. The default of a handles file.
	InjectRequired
	// InjectNever: a call gets only what it names (a stand-in resolved, a
	// number named as a string typed, a near miss repaired): the value is
	// the model's choice (a tab's position).
	InjectNever
)

func (i InjectWhen) String() string {
	return [...]string{"always", "required", "never"}[i]
}

// Injects reports whether a call of a tool that takes the handle, and
// names none of its values, gets the one held; schema is what the tool's
// input schema says (nil: not known).
func (s *Spec) Injects(schema Schema) bool {
	switch {
	case s.Inject == InjectAlways:
		return true
	case s.Inject == InjectNever:
		return false
	case schema != nil:
		return schema(s.Arg).Required
	}
	return s.Declared()
}

// ShowsStandIns reports whether the model may ever read one of the
// handle's values as a stand-in (Holding.Hidden): never a number's, never
// with StandInsNone, and never where Pattern bounds every value under the
// length from which one is hidden (a 6-character index).
func (s *Spec) ShowsStandIns() bool {
	if s.Kind == KindNumber || s.StandIns == StandInsNone {
		return false
	}
	shortest := LongValue
	if s.StandIns == StandInsAll {
		shortest = MinStandIn
	}
	if s.Pattern != nil {
		if n, ok := maxLen(s.Pattern); ok && n < shortest {
			return false
		}
	}
	return true
}

// StandIns says which of a handle's values the model reads as stand-ins
// (where the client lets results be rewritten, and in the proxy).
type StandIns uint8

const (
	// StandInsLong: values of LongValue characters or more, the ones a
	// model mistypes; short ones (a 6-character index, element uids that
	// fill a page snapshot) stay as they are.
	StandInsLong StandIns = iota
	// StandInsAll: every value of MinStandIn characters or more (a secret
	// session token, whatever its length).
	StandInsAll
	// StandInsNone: the model reads every value as it is.
	StandInsNone
)

func (s StandIns) String() string {
	switch s {
	case StandInsAll:
		return "all"
	case StandInsNone:
		return "none"
	}
	return "long"
}

// MinStandIn is the shortest value ever replaced by a stand-in: shorter
// ones are too likely to be ordinary words.
const MinStandIn = 4

// Declared reports whether the spec names the tools that take the handle.
func (s *Spec) Declared() bool { return len(s.To) > 0 || s.ToMatch != nil }

// Takes reports whether tool takes the handle, by the spec alone; schema
// says what the tool's input schema tells (nil: not known, as in hook
// mode). A skipped tool never takes it; declared tools take it; else, with
// a schema known, the tools that have Arg, and without one, every tool.
func (s *Spec) Takes(tool string, schema func(arg string) (has bool, known bool)) bool {
	if slices.Contains(s.Skip, tool) {
		return false
	}
	if s.Declared() {
		return slices.Contains(s.To, tool) || s.ToMatch != nil && s.ToMatch.MatchString(tool)
	}
	if schema != nil {
		if has, known := schema(s.Arg); known {
			return has
		}
	}
	return true
}

// StartedBy reports whether tool starts the handle over.
func (s *Spec) StartedBy(tool string) bool { return slices.Contains(s.Starts, tool) }

// mints reports whether any source reads tool's results.
func (s *Spec) mints(tool string) bool {
	for _, src := range s.From {
		if src.covers(tool) {
			return true
		}
	}
	return false
}

// rules are the shape rules for values read from prose lines.
func (s *Spec) rules(line string) Rules {
	return Rules{Key: line, MinLen: s.MinLen, Pattern: s.Pattern}
}

// Check reports what is wrong with a spec, naming the field.
func (s *Spec) Check() error {
	if err := ValidateKey(s.Name); err != nil {
		return fmt.Errorf("name: %w", err)
	}
	if err := ValidateKey(s.Arg); err != nil {
		return fmt.Errorf("handle %q: arg: %w", s.Name, err)
	}
	if len(s.From) == 0 {
		return fmt.Errorf("handle %q: from: no source", s.Name)
	}
	for i, src := range s.From {
		if src.Text != nil {
			if src.Meta != "" || src.JSON != "" || src.Line != "" {
				return fmt.Errorf("handle %q: from[%d]: text is used alone, not with meta, json or line", s.Name, i)
			}
			if src.Text.NumSubexp() != 1 {
				return fmt.Errorf("handle %q: from[%d]: text %q must have exactly one group (the value), it has %d", s.Name, i, src.Text.String(), src.Text.NumSubexp())
			}
			continue
		}
		if src.Meta == "" && src.JSON == "" && src.Line == "" {
			return fmt.Errorf("handle %q: from[%d]: names no meta, json, line or text", s.Name, i)
		}
	}
	if s.Lifetime == Stable && len(s.Starts) == 0 {
		return fmt.Errorf("handle %q: lifetime stable needs starts (the tools whose value becomes the one injected)", s.Name)
	}
	for _, t := range s.Starts {
		if !s.mints(t) {
			return fmt.Errorf("handle %q: starts: %q is a tool no source of from reads", s.Name, t)
		}
	}
	return nil
}

// CheckAll checks specs and that no two share a name or an argument.
func CheckAll(specs []Spec) error {
	if len(specs) == 0 {
		return fmt.Errorf("no handle declared")
	}
	names, args := map[string]bool{}, map[string]bool{}
	for i := range specs {
		s := &specs[i]
		if err := s.Check(); err != nil {
			return err
		}
		if names[s.Name] {
			return fmt.Errorf("handle %q is declared twice", s.Name)
		}
		if args[s.Arg] {
			return fmt.Errorf("handle %q: arg %q is another handle's argument too", s.Name, s.Arg)
		}
		names[s.Name], args[s.Arg] = true, true
	}
	return nil
}

// Live is what one session holds of one handle.
type Live struct {
	// Values are the live values, newest first, at most MaxHeld; a call
	// can name any of them (by value or by stand-in).
	Values Held
	// Default is the value a call that names none gets; "" when none may
	// be injected (nothing minted yet, or a Starts tool returned none).
	Default string
	// Withdrawn says why Default is "" although values are held: a Starts
	// tool returned none. Messages read it; it is never a value.
	Withdrawn string
	// MetaSeen says the server's _meta has carried a value of the handle
	// in this session: from then on prose lines are not read for it (a
	// document a tool passes through may hold a `key: value` line; the
	// server's own values come in _meta).
	MetaSeen bool
}

// Minted is what one result gave a handle.
type Minted struct {
	Values []string // the values, distinct, in the order found
	Where  Where    // where in the result, for traces
	Line   bool     // the value was read from a prose line
}

// Starting returns l as it is while a call of tool runs: a start tool's
// call retires the value held before, which belongs to what came before;
// the value its result mints becomes the one injected (Apply). A client
// that never shows a hook the failed call's result (Codex runs no
// PostToolUse for an error result; Claude Code sends PostToolUseFailure)
// would otherwise leave the old one in place. changed says l changed.
func (s *Spec) Starting(l Live, tool string) (out Live, changed bool) {
	if !s.StartedBy(tool) || l.Default == "" {
		return l, false
	}
	l.Default, l.Withdrawn = "", fmt.Sprintf("%s was called, and no %s from it came back", tool, s.Name)
	return l, true
}

// Apply returns l after tool's result minted m (err: the result carried
// something under the handle's key that could not be taken); carried is
// the value the call itself passed in the handle's argument ("" when none).
// note is one line for the user when something was refused or withdrawn;
// it never holds a value.
//
// A result's one value that is what the call carried is an echo: it keeps
// that value live, and the one injected stays (a call that names a
// dispatched child's index gets the child's index back in _meta; the
// session's next call must still get its own). A value that differs from
// what the call carried is a new one: a rotation, or a start.
func (s *Spec) Apply(l Live, tool string, m Minted, err error, carried string) (out Live, note string) {
	out = l
	switch {
	case len(m.Values) > 0:
		out.MetaSeen = l.MetaSeen || m.Where == FromMeta
		out.Values = l.Values
		for i := len(m.Values) - 1; i >= 0; i-- {
			out.Values = out.Values.Push(m.Values[i])
		}
		switch {
		case len(m.Values) == 1 && m.Values[0] == carried && carried != l.Default && !s.StartedBy(tool) && (l.Default != "" || l.Withdrawn != ""):
			// An echo of a value the call named: live, not injected.
		case len(m.Values) > 1:
			// Several at once (element uids): all live, none chosen for
			// the model.
			if s.Lifetime == Rotates || s.StartedBy(tool) {
				out.Default, out.Withdrawn = "", ""
			}
		case s.Lifetime == Rotates || s.StartedBy(tool):
			out.Default, out.Withdrawn = m.Values[0], ""
		case out.Default == "" && out.Withdrawn == "" && len(l.Values) == 0:
			// A stable handle first seen in another tool's result (a
			// resumed session): nothing else could be meant.
			out.Default = m.Values[0]
		}
		if err != nil {
			note = err.Error()
		}
		return out, note
	case s.StartedBy(tool):
		why := fmt.Sprintf("%s returned no %s", tool, s.Name)
		if err != nil {
			why = fmt.Sprintf("%s returned no usable %s (%v)", tool, s.Name, err)
		}
		if l.Default != "" || len(l.Values) > 0 {
			out.Default, out.Withdrawn = "", why
			return out, why + "; the one held before is no longer injected"
		}
		return out, why
	case err != nil:
		return out, err.Error()
	}
	return out, ""
}

// Holding is what one session holds of a server's handles, by name.
type Holding map[string]Live

// Hidden returns the values the model must not read, each set under its
// handle's name (the stand-ins' label), as each spec's StandIns says;
// values of number handles are never hidden.
func (h Holding) Hidden(specs []Spec) []Named {
	var out []Named
	for i := range specs {
		s := &specs[i]
		if s.Kind == KindNumber || s.StandIns == StandInsNone {
			continue
		}
		var long Held
		for _, v := range h[s.Name].Values {
			if IsLong(v) || s.StandIns == StandInsAll && len(v) >= MinStandIn {
				long = append(long, v)
			}
		}
		if len(long) > 0 {
			out = append(out, Named{Name: s.Name, Held: long})
		}
	}
	return out
}

// All returns every value held, of every handle, for resolving stand-ins.
func (h Holding) All(specs []Spec) []Named {
	var out []Named
	for i := range specs {
		if l := h[specs[i].Name]; len(l.Values) > 0 {
			out = append(out, Named{Name: specs[i].Name, Held: l.Values})
		}
	}
	return out
}

// LongValue is the length from which a value is long: shown to the model
// only as a stand-in, repaired when a call carries a near miss of it. A
// shorter value (a 6-character index, a pid) is easy to type right and
// likely to occur as an ordinary word.
const LongValue = DefaultMinLen

// IsLong reports whether v is long (LongValue).
func IsLong(v string) bool { return len(v) >= LongValue }

// Named is one handle's values with the name its stand-ins carry.
type Named struct {
	Name string
	Held Held
}

// hasValue reports whether the named sets hold v.
func hasValue(sets []Named, v string) bool {
	for _, n := range sets {
		if slices.Contains(n.Held, v) {
			return true
		}
	}
	return false
}

// FlagSpec is the one handle hook flags and proxy flags describe (--arg,
// --meta-key, …): a rotating value read from _meta, JSON and `key: value`
// lines under metaKey, from every tool's result, which the model reads only
// as a stand-in whatever its length (a session token is a secret).
func FlagSpec(arg, metaKey string, minLen int, pattern *regexp.Regexp, starts, skip, keepIf []string) Spec {
	return Spec{
		Name: metaKey, Arg: arg, Kind: KindString, Lifetime: Rotates,
		From:   []Source{{Meta: metaKey, JSON: gjson.Escape(metaKey), Line: metaKey}},
		Starts: starts, Skip: skip, KeepIf: keepIf, Pattern: pattern, MinLen: minLen,
		StandIns: StandInsAll,
	}
}

// Mint finds the values tool's result gives the handle: those of the first
// source (in From's order) that reads tool's results and yields one. A
// value under a declared key that cannot be taken, or different values from
// one source's channels, give an error and no value: never a guess.
func (s *Spec) Mint(tool string, r Result) (Minted, error) {
	return s.mint(tool, r, true)
}

// MintFor is Mint for a session that holds l of the handle: once _meta has
// carried its value (Live.MetaSeen), prose lines are not read.
func (s *Spec) MintFor(tool string, r Result, l Live) (Minted, error) {
	return s.mint(tool, r, !l.MetaSeen)
}

// Reading is what one result offers a handle, read before it is known what
// the session holds (a store's update may run its function twice, and must
// not read the result again): For picks.
type Reading struct {
	all, own       Minted // with prose lines, and without
	allErr, ownErr error
}

// Read reads tool's result for the handle, with prose lines and, where
// that can differ, without.
func (s *Spec) Read(tool string, r Result) Reading {
	rd := Reading{}
	rd.all, rd.allErr = s.mint(tool, r, true)
	rd.own, rd.ownErr = rd.all, rd.allErr
	if rd.all.Line || rd.allErr != nil {
		// Without lines a source before may still yield nothing, the same
		// source may yield its own channels' value, or none.
		rd.own, rd.ownErr = s.mint(tool, r, false)
	}
	return rd
}

// For is the reading for a session that holds l (see MintFor).
func (rd Reading) For(l Live) (Minted, error) {
	if l.MetaSeen {
		return rd.own, rd.ownErr
	}
	return rd.all, rd.allErr
}

// mint is Mint, reading prose lines only when lines is set.
func (s *Spec) mint(tool string, r Result, lines bool) (Minted, error) {
	for _, src := range s.From {
		if !src.covers(tool) {
			continue
		}
		var m Minted
		if src.Text != nil {
			vals, err := s.matchText(src.Text, r.Texts)
			if err != nil {
				return Minted{}, err
			}
			m = Minted{Values: vals, Where: FromText}
		} else {
			line := src.Line
			if !lines {
				line = ""
			}
			v, where, fromLine, err := chooseFrom(r, src.Meta, src.JSON, line, s.rules(src.Line))
			if err != nil {
				return Minted{}, err
			}
			if v != "" {
				m = Minted{Values: []string{v}, Where: where, Line: fromLine}
			}
		}
		if len(m.Values) == 0 {
			continue
		}
		if s.Kind == KindNumber {
			for _, v := range m.Values {
				if !isNumber(v) {
					return Minted{}, fmt.Errorf("the %s value in %s is not a number; nothing stored", s.Name, m.Where)
				}
			}
		}
		// A value may be a substring of the result, whose buffer the caller
		// reuses (the proxy's line reader): what is held is its own copy.
		for i, v := range m.Values {
			m.Values[i] = strings.Clone(v)
		}
		return m, nil
	}
	return Minted{}, nil
}

// matchText returns every distinct value re's group matches in the texts.
func (s *Spec) matchText(re *regexp.Regexp, texts []string) ([]string, error) {
	var vals []string
	rules := s.rules("")
	for _, t := range texts {
		for _, m := range re.FindAllStringSubmatch(t, -1) {
			v := m[1]
			if v == "" || slices.Contains(vals, v) {
				continue
			}
			if err := rules.checkDeclared(v); err != nil {
				return nil, fmt.Errorf("a %s value matched in the text cannot be taken: %w; nothing stored", s.Name, err)
			}
			vals = append(vals, v)
			if len(vals) == MaxHeld {
				return vals, nil
			}
		}
	}
	return vals, nil
}

// Carried is the value args (a call's arguments, raw JSON) pass in the
// handle's argument: a string's value, a number's literal, "" for none.
func (s *Spec) Carried(args gjson.Result) string {
	v, _ := scalar(args.Get(gjson.Escape(s.Arg)))
	return v
}

// isNumber reports whether v is a JSON number literal.
func isNumber(v string) bool {
	return gjson.Valid(v) && gjson.Parse(v).Type == gjson.Number
}

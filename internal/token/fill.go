package token

import (
	"fmt"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Filled is what Fill made of a call's arguments.
type Filled struct {
	Args    string // the arguments as they go on
	Changed bool
	// Trace says what was done, for a debug log: handle names and masked
	// values only.
	Trace []string
	// Withheld are the handles the call takes and names none of, where the
	// value held is no longer injected (a Starts tool returned none): the
	// call would run against what came before. Hooks say so in one line;
	// the proxy answers the call with an error the model reads.
	Withheld []Withheld
}

// Withheld is one handle a call needs and does not get.
type Withheld struct {
	Handle string
	Why    string // Live.Withdrawn
}

// Message is one line for the model or the user.
func (w Withheld) Message() string {
	return fmt.Sprintf("interceptor has no %s to inject: %s. The one held before belongs to an earlier session and is not used; start again, or pass %s yourself.", w.Handle, w.Why, w.Handle)
}

// SchemaArg is what a tool's input schema says of one argument.
type SchemaArg struct {
	Has      bool // the tool has the argument
	Number   bool // its type is number or integer
	Required bool // the schema's required list names it
}

// Schema tells what a tool's input schema says of an argument; nil: no
// schema is known (hook mode; the proxy before tools/list).
type Schema func(arg string) SchemaArg

// Fill rewrites the arguments of a call of tool, for the specs' handles as
// held by one session:
//   - every stand-in (any argument, any depth) becomes the value it names,
//     whichever handle holds it; one that names no held value is an
//     *UnknownStandInError, and the call must not go out;
//   - for each handle the tool takes (Spec.Takes), a call that carries the
//     handle's argument keeps it (a value the model names), repaired when it
//     is a near miss of exactly one held value the spec repairs (NearMiss,
//     Spec.RepairFrom), and typed as the
//     handle's kind when it names a held number as a string;
//   - a call that carries neither the argument nor a KeepIf argument gets
//     the handle's Default, as its kind, where leaving the argument out
//     means nothing else (Spec.Injects: never where it is optional and the
//     spec says InjectRequired); when the Default was withdrawn the handle
//     is Withheld.
func Fill(args, tool string, specs []Spec, h Holding, schema Schema) (Filled, error) {
	f := Filled{Args: args}
	if !strings.HasPrefix(strings.TrimSpace(args), "{") {
		return f, nil // not an object: not ours to fix
	}
	all := h.All(specs)
	resolved, changed, err := ResolveNamed(args, all)
	if err != nil {
		return f, err
	}
	if changed {
		f.Args, f.Changed = resolved, true
		f.Trace = append(f.Trace, "resolved stand-ins")
	}
	var has func(string) (bool, bool)
	if schema != nil {
		has = func(arg string) (bool, bool) { return schema(arg).Has, true }
	}
	for i := range specs {
		s := &specs[i]
		if !s.Takes(tool, has) {
			continue
		}
		kind := s.Kind
		if schema != nil && kind == KindString && schema(s.Arg).Number {
			kind = KindNumber // the server's schema says so
		}
		if err := f.fillOne(s, tool, kind, s.Injects(schema), h[s.Name]); err != nil {
			return f, err
		}
	}
	return f, nil
}

// fillOne fills one handle the tool takes; inject says whether a call that
// names none of its values gets the one held (Spec.Injects).
func (f *Filled) fillOne(s *Spec, tool string, kind Kind, inject bool, l Live) error {
	var carried gjson.Result
	keep := ""
	rawjson.Fields(f.Args, func(k, raw string) bool {
		switch {
		case k == s.Arg:
			if !carried.Exists() { // the first of duplicate keys, as gjson.Get
				carried = gjson.Parse(raw)
			}
		case keep == "" && slices.Contains(s.KeepIf, k) && carries(gjson.Parse(raw)):
			keep = k
		}
		return true
	})
	switch {
	case carries(carried):
		return f.named(s, kind, carried, l)
	case keep != "":
		f.Trace = append(f.Trace, fmt.Sprintf("%s carries %s: no %s injected", tool, keep, s.Name))
		return nil
	case !inject:
		// Left out, an optional argument means what the server says (a
		// whole-page screenshot): the call goes on as the model made it.
		f.Trace = append(f.Trace, fmt.Sprintf("%s is optional in %s and left out: no %s injected", s.Arg, tool, s.Name))
		return nil
	case l.Default != "":
		out, err := InjectValue(f.Args, s.Arg, l.Default, kind)
		if err != nil {
			return fmt.Errorf("%s: %w", tool, err)
		}
		f.Args, f.Changed = string(out), true
		f.Trace = append(f.Trace, fmt.Sprintf("injected %s %s into %s", s.Name, Mask(l.Default), tool))
	case l.Withdrawn != "":
		f.Withheld = append(f.Withheld, Withheld{Handle: s.Name, Why: l.Withdrawn})
	case len(l.Values) > 0:
		f.Trace = append(f.Trace, fmt.Sprintf("%d %s values live and none chosen: %s names none", len(l.Values), s.Name, tool))
	default:
		f.Trace = append(f.Trace, fmt.Sprintf("no %s held", s.Name))
	}
	return nil
}

// named handles a call that carries the handle's argument.
func (f *Filled) named(s *Spec, kind Kind, v gjson.Result, l Live) error {
	if v.Type != gjson.String {
		if slices.Contains(l.Values, v.Raw) {
			f.Trace = append(f.Trace, fmt.Sprintf("%s names a held %s", s.Arg, s.Name))
		}
		return nil
	}
	switch {
	case slices.Contains(l.Values, v.Str):
		if kind == KindNumber && isNumber(v.Str) {
			return f.set(s, kind, v.Str, fmt.Sprintf("%s names a held %s as a string: sent as a number", s.Arg, s.Name))
		}
		f.Trace = append(f.Trace, fmt.Sprintf("%s names a held %s", s.Arg, s.Name))
	default:
		if near, ok := NearMiss(v.Str, l.Values, s.RepairFrom()); ok {
			return f.set(s, kind, near, fmt.Sprintf("repaired %s: a near miss of the held %s %s", s.Arg, s.Name, Mask(near)))
		}
		f.Trace = append(f.Trace, fmt.Sprintf("%s carries a %s interceptor does not hold: left as it is", s.Arg, s.Name))
	}
	return nil
}

func (f *Filled) set(s *Spec, kind Kind, v, trace string) error {
	out, err := InjectValue(f.Args, s.Arg, v, kind)
	if err != nil {
		return err
	}
	f.Args, f.Changed = string(out), true
	f.Trace = append(f.Trace, trace)
	return nil
}

// carries reports whether an argument value carries something: an absent
// key, null or an empty string carries nothing.
func carries(v gjson.Result) bool {
	switch {
	case !v.Exists(), v.Type == gjson.Null:
		return false
	case v.Type == gjson.String && strings.TrimSpace(v.Str) == "":
		return false
	}
	return true
}

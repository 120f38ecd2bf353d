// Package token is the per-value logic of what interceptor carries, shared
// by hook mode and proxy mode (internal/carry is the core around it): what
// a handle is (a value a server mints and later calls pass back: a session
// token, an index, a pid), finding its values in a tool result, injecting
// them into tool arguments, repairing a near miss, and redacting them from
// what the model reads. The package keeps its historical name; "token" in
// it is one kind of handle.
//
// Everything works on raw JSON bytes through gjson (read) and sjson (edit),
// so bytes we do not touch survive exactly: key order, number spelling and
// unknown fields.
//
// The files:
//
//   - handle.go is what one handle is (Spec: where its values come from,
//     which tools take it, which start it over, its kind and lifetime) and
//     what a session holds of it (Live, Holding): Mint and Read find a
//     result's values, Apply and Starting change what is held; FlagSpec is
//     the one handle the flags describe.
//   - maxlen.go is the longest match a pattern can have, so a handle whose
//     declared pattern never reaches a stand-in's length shows none
//     (Spec.ShowsStandIns).
//   - handlesfile.go reads a --handles file into Specs (ParseHandles).
//   - fill.go puts the values held into a call's arguments (Fill):
//     stand-ins resolved, near misses repaired, the value held injected
//     where the call names none.
//   - nearmiss.go is the near-miss repair (NearMiss) and when it is sound.
//   - token.go validates, masks and injects a value (Validate, Mask,
//     Inject), and holds Result, the parts of a tool result a client lets
//     us see.
//   - choose.go picks the one value of a result, by rules, and refuses to
//     guess between two (Choose, Rules).
//   - passthrough.go tells the lines of a text a tool passes through (a
//     fenced block, a block quote): never a value.
//   - standin.go names values for the model (StandIn, Handle: the label a
//     stand-in carries) and keeps the few a session holds, latest first
//     (Held).
//   - redact.go replaces held values with their stand-ins wherever and
//     however they are spelled, for the model and for every view a person
//     or a parent agent reads (RedactResult, MaskedJSON).
package token

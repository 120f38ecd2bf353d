// Package token holds the token logic shared by hook mode and proxy mode:
// validating a token, finding it in a tool result, injecting it into tool
// arguments and redacting it from what the model reads.
//
// Everything works on raw JSON bytes through gjson (read) and sjson (edit),
// so bytes we do not touch survive exactly: key order, number spelling and
// unknown fields.
//
// The files:
//
//   - token.go validates, masks and injects a token (Validate, Inject), and
//     holds Result, the parts of a tool result a client lets us see.
//   - choose.go picks the one token of a result, by rules, and refuses to
//     guess between two (Choose, Rules).
//   - standin.go names tokens for the model (StandIn, Handle) and keeps the
//     few a session holds, latest first (Held).
//   - redact.go replaces held tokens with their stand-ins wherever and
//     however they are spelled, for the model and for every view a person
//     or a parent agent reads (RedactResult, MaskedJSON).
package token

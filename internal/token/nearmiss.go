package token

import "github.com/interceptor-dev/interceptor/internal/editdist"

// Near-miss repair: a model that copies a long value it was shown drops,
// doubles or inserts a character or two (the bug this project started from:
// two hex characters inserted into a 480-character token). A call whose
// handle argument is within a small edit distance of exactly one held
// value, and is no held value itself, gets that value instead.
//
// A repair is only sound where a near miss cannot be another valid value.
// Ids minted in sequence (ObjectIds, ULIDs, UUIDv1s, counters, timestamps)
// differ from the next one in a character or two: `delete_item` naming a
// neighbour of the held id is the model's choice, and "repairing" it deletes
// the wrong item. Signed or random tokens of RepairLen characters or more
// (the 259–480-character tokens this was built for, JWTs, macaroons) are
// different: no format that mints ids in sequence comes near that length,
// and a near miss of a signed value fails its signature, so it can only be
// a typo. Shorter values are repaired only for a handle whose handles file
// says a near miss of it is never another valid value ("repair": true).

// RepairLen is the length from which a held value is repaired by default.
// The longest common id formats are far below it (ObjectId 24, ULID 26,
// KSUID 27, UUID 36, a SHA-256 in hex 64).
const RepairLen = 128

// Repair says which of a handle's held values a near miss is repaired to.
type Repair uint8

const (
	// RepairLongOnly: values of RepairLen characters or more (the default).
	RepairLongOnly Repair = iota
	// RepairDeclared: every long value (LongValue characters or more): the
	// handles file says a near miss is never another valid value.
	RepairDeclared
	// RepairNever: no value (the handles file says "repair": false, e.g.
	// an unsigned cursor that encodes an offset).
	RepairNever
)

// RepairFrom is the shortest held value a near miss is repaired to; 0:
// none is.
func (s *Spec) RepairFrom() int {
	switch s.Repair {
	case RepairDeclared:
		return LongValue
	case RepairNever:
		return 0
	}
	return RepairLen
}

// nearDistance is how many edits still count as a near miss of a value of
// n bytes: 2 for the shortest long values, growing slowly with length.
func nearDistance(n int) int { return 2 + n/128 }

// NearMiss returns the one held value v is a near miss of, among the held
// values of from characters or more (Spec.RepairFrom). ok is false when v
// is short, is held itself, or is near none or more than one of them, and
// always when from is 0.
func NearMiss(v string, held Held, from int) (string, bool) {
	if from <= 0 || !IsLong(v) {
		return "", false
	}
	from = max(from, LongValue)
	match, found := "", 0
	for _, h := range held {
		if h == v {
			return "", false
		}
		if len(h) < from {
			continue
		}
		if editdist.Within(v, h, nearDistance(len(h))) {
			if h != match {
				found++
			}
			match = h
		}
	}
	if found != 1 {
		return "", false
	}
	return match, true
}

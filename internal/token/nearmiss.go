package token

import "github.com/interceptor-dev/interceptor/internal/editdist"

// Near-miss repair: a model that copies a long value it was shown drops,
// doubles or inserts a character or two (the bug this project started from:
// two hex characters inserted into a 480-character token). A call whose
// handle argument is within a small edit distance of exactly one held
// value, and is no held value itself, gets that value instead.

// nearDistance is how many edits still count as a near miss of a value of
// n bytes: 2 for the shortest long values, growing slowly with length.
func nearDistance(n int) int { return 2 + n/128 }

// NearMiss returns the one held value v is a near miss of. ok is false when
// v is short, is held itself, or is near none or more than one of them.
func NearMiss(v string, held Held) (string, bool) {
	if !IsLong(v) {
		return "", false
	}
	match, found := "", 0
	for _, h := range held {
		if h == v {
			return "", false
		}
		if !IsLong(h) {
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

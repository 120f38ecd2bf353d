package token

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
		if editDistanceWithin(v, h, nearDistance(len(h))) {
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

// editDistanceWithin reports whether the Levenshtein distance of a and b
// (in bytes) is at most k. Only cells within k of the diagonal can be on
// such a path, so it costs O(len·k), not O(len²).
func editDistanceWithin(a, b string, k int) bool {
	if d := len(a) - len(b); d > k || -d > k {
		return false
	}
	const far = 1 << 30
	width := 2*k + 1
	// row[j-i+k] is the distance of a[:i] and b[:j], for |j-i| <= k.
	prev := make([]int, width)
	cur := make([]int, width)
	for d := range prev {
		j := d - k // i = 0
		if j >= 0 && j <= len(b) {
			prev[d] = j
		} else {
			prev[d] = far
		}
	}
	for i := 1; i <= len(a); i++ {
		best := far
		for d := range cur {
			j := i + d - k
			if j < 0 || j > len(b) {
				cur[d] = far
				continue
			}
			v := far
			if j == 0 {
				v = i
			} else {
				cost := 1
				if a[i-1] == b[j-1] {
					cost = 0
				}
				v = prev[d] + cost // a[i-1] against b[j-1]: same diagonal
				if d+1 < width && prev[d+1]+1 < v {
					v = prev[d+1] + 1 // a[i-1] deleted: from (i-1, j)
				}
				if d > 0 && cur[d-1]+1 < v {
					v = cur[d-1] + 1 // b[j-1] inserted: from (i, j-1)
				}
			}
			cur[d] = v
			best = min(best, v)
		}
		if best > k {
			return false
		}
		prev, cur = cur, prev
	}
	d := len(b) - len(a) + k
	return d >= 0 && d < width && prev[d] <= k
}

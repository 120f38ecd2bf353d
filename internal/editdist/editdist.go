// Package editdist measures how far apart two strings are in single-byte
// edits (Levenshtein distance): to suggest the name a typo meant, and to
// repair a long value a model copied with a character or two wrong.
package editdist

// Distance is the Levenshtein distance of a and b, in bytes. It costs
// O(len(a)·len(b)): for short strings such as names.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Within reports whether the Levenshtein distance of a and b
// (in bytes) is at most k. Only cells within k of the diagonal can be on
// such a path, so it costs O(len·k), not O(len²).
func Within(a, b string, k int) bool {
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

package editdist

import (
	"math/rand/v2"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"wf", "wf", 0}, {"", "abc", 3}, {"abc", "", 3},
		{"kitten", "sitting", 3}, {"workflow", "workflwo", 2}, {"wf", "fw", 2},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// Within agrees with Distance, the plain dynamic program.
func TestWithinAgreesWithDistance(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		a := randString(r, r.IntN(30))
		b := mutate(r, a, r.IntN(6))
		d := Distance(a, b)
		for k := 0; k <= 6; k++ {
			if got := Within(a, b, k); got != (d <= k) {
				t.Fatalf("Within(%q, %q, %d) = %v, distance %d", a, b, k, got, d)
			}
		}
	}
}

func randString(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abc"[r.IntN(3)]
	}
	return string(b)
}

func mutate(r *rand.Rand, s string, edits int) string {
	for range edits {
		i := r.IntN(len(s) + 1)
		switch r.IntN(3) {
		case 0:
			s = s[:i] + "abc"[r.IntN(3):][:1] + s[i:]
		case 1:
			if i < len(s) {
				s = s[:i] + s[i+1:]
			}
		default:
			if i < len(s) {
				s = s[:i] + "abc"[r.IntN(3):][:1] + s[i+1:]
			}
		}
	}
	return s
}

package rawjson

import (
	"math/big"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestNumberKey(t *testing.T) {
	same := [][]string{
		{"2", "2.0", "20e-1", "0.2E+1", "2e0", "2.000E0"},
		{"0", "-0", "0.0", "0e10", "-0.000e-3"},
		{"-15", "-1.5e1", "-150E-1"},
		{"100", "1e2", "1.00e2", "10E1"},
		{"0.001", "1e-3", "10e-4"},
	}
	for _, group := range same {
		want, ok := NumberKey(group[0])
		if !ok {
			t.Fatalf("NumberKey(%s) not ok", group[0])
		}
		for _, s := range group[1:] {
			if got, ok := NumberKey(s); !ok || got != want {
				t.Errorf("NumberKey(%s) = %q %t, want %q (as %s)", s, got, ok, want, group[0])
			}
		}
	}
	different := []string{"1", "2", "-2", "0.2", "20", "9007199254740992", "9007199254740993", "1e400", "1e-400"}
	keys := map[string]string{}
	for _, s := range different {
		k, ok := NumberKey(s)
		if !ok {
			t.Fatalf("NumberKey(%s) not ok", s)
		}
		if other, dup := keys[k]; dup {
			t.Errorf("%s and %s share the key %q", s, other, k)
		}
		keys[k] = s
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1x", "0x10", "1e99999999999999999999", "NaN", "1 "} {
		if k, ok := NumberKey(bad); ok {
			t.Errorf("NumberKey(%q) = %q, want not ok", bad, k)
		}
	}
}

// FuzzNumberKey checks that two numbers share a key exactly when their
// values are equal.
func FuzzNumberKey(f *testing.F) {
	f.Add("2", "2.0")
	f.Add("-0", "0e5")
	f.Add("123.4500e-2", "1.2345")
	f.Add("9007199254740993", "9007199254740992")
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, oka := NumberKey(a)
		kb, okb := NumberKey(b)
		for _, s := range []struct {
			raw string
			ok  bool
		}{{a, oka}, {b, okb}} {
			isNum := gjson.Valid(s.raw) && gjson.Parse(s.raw).Type == gjson.Number && gjson.Parse(s.raw).Raw == s.raw
			if s.ok && !isNum {
				t.Fatalf("NumberKey accepted %q, which is not a JSON number", s.raw)
			}
		}
		if !oka || !okb || hugeExponent(a) || hugeExponent(b) {
			return
		}
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		if ra == nil || rb == nil {
			t.Fatalf("big.Rat cannot read %q or %q", a, b)
		}
		if (ka == kb) != (ra.Cmp(rb) == 0) {
			t.Fatalf("NumberKey(%s) = %s, NumberKey(%s) = %s, but equal values: %t", a, ka, b, kb, ra.Cmp(rb) == 0)
		}
	})
}

// hugeExponent keeps big.Rat from building numbers of millions of digits.
func hugeExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	return i >= 0 && len(strings.TrimLeft(s[i+1:], "+-0")) > 3
}

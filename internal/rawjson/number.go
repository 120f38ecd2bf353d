package rawjson

import (
	"strconv"
	"strings"
)

// NumberKey returns a spelling of the JSON number raw that is the same for
// every spelling of the same value: 2, 2.0, 20e-1 and 0.2E+1 all give "2e0".
// JSON-RPC ids are compared by value, and a peer may echo an id in another
// spelling than it was sent in. The value is kept exactly (no float
// rounding), so 9007199254740993 and 9007199254740992 stay apart. ok is
// false when raw is not a JSON number (or its exponent does not fit an
// int64): the caller then compares it as it is.
func NumberKey(raw string) (key string, ok bool) {
	s := raw
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	intEnd := digitsEnd(s, 0)
	if intEnd == 0 || (s[0] == '0' && intEnd > 1) {
		return "", false // no integer part, or a leading zero
	}
	intPart, fracPart := s[:intEnd], ""
	i := intEnd
	if i < len(s) && s[i] == '.' {
		j := digitsEnd(s, i+1)
		if j == i+1 {
			return "", false
		}
		fracPart, i = s[i+1:j], j
	}
	exp := int64(0)
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := digitsEnd(s, j)
		if k == j || k != len(s) {
			return "", false
		}
		e, err := strconv.ParseInt(strings.TrimPrefix(s[i+1:], "+"), 10, 64)
		if err != nil {
			return "", false
		}
		exp, i = e, k
	}
	if i != len(s) {
		return "", false
	}
	// value = digits × 10^(exp - len(frac)), digits without leading or
	// trailing zeros.
	digits := strings.TrimLeft(intPart+fracPart, "0")
	if digits == "" {
		return "0", true // -0 is 0
	}
	trimmed := strings.TrimRight(digits, "0")
	shift := int64(len(digits)-len(trimmed)) - int64(len(fracPart))
	if (shift > 0 && exp > (1<<63-1)-shift) || (shift < 0 && exp < (-1<<63)-shift) {
		return "", false
	}
	exp += shift
	var b strings.Builder
	b.Grow(len(trimmed) + 24)
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(trimmed)
	b.WriteByte('e')
	b.WriteString(strconv.FormatInt(exp, 10))
	return b.String(), true
}

func digitsEnd(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

package token

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// maxLen is the longest match re can have, in bytes; ok is false when
// there is no bound (a star, a plus, an open repeat). ShowsStandIns reads
// a declared pattern with it: `[A-Z2-7]{6}` never reaches a stand-in's
// length.
func maxLen(re *regexp.Regexp) (n int, ok bool) {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return 0, false
	}
	return maxLenOf(parsed.Simplify())
}

func maxLenOf(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return 0, true
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += runeLen(r, re.Flags&syntax.FoldCase != 0)
		}
		return n, true
	case syntax.OpCharClass:
		most := rune(0)
		for i := 1; i < len(re.Rune); i += 2 {
			most = max(most, re.Rune[i])
		}
		return runeLen(most, false), true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxLenOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		n, ok := maxLenOf(re.Sub[0])
		return n * re.Max, ok
	case syntax.OpConcat:
		total := 0
		for _, sub := range re.Sub {
			n, ok := maxLenOf(sub)
			if !ok {
				return 0, false
			}
			total += n
		}
		return total, true
	case syntax.OpAlternate:
		most := 0
		for _, sub := range re.Sub {
			n, ok := maxLenOf(sub)
			if !ok {
				return 0, false
			}
			most = max(most, n)
		}
		return most, true
	}
	return 0, false // star, plus: unbounded
}

// runeLen is the bytes r takes in UTF-8; folded, the longest of its cases
// (K and the Kelvin sign).
func runeLen(r rune, fold bool) int {
	if fold {
		return utf8.UTFMax
	}
	if n := utf8.RuneLen(r); n > 0 {
		return n
	}
	return utf8.UTFMax
}

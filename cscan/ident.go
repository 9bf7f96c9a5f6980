package cscan

import "strings"

// IsIdentStart reports whether c may start a C identifier as GCC reads
// kernel code: an ASCII letter, '_' or '$' (a GCC extension). The lexer
// and diffcheck's function finder share it, so they agree on what a name
// is.
func IsIdentStart(c byte) bool {
	return lexClass[c] == lcIdent
}

// IsIdentChar reports whether c may continue a C identifier: IsIdentStart
// or an ASCII digit.
func IsIdentChar(c byte) bool {
	return lexClass[c] >= lcDigit
}

// IsIdent reports whether s is one whole C identifier.
func IsIdent(s string) bool {
	if s == "" || !IsIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !IsIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// ContainsWord reports whether w occurs in s delimited as an identifier
// is: no identifier character (IsIdentChar) just before it when it
// starts with one, none just after it when it ends with one ("~GFP_ATOMIC"
// matches in "x&~GFP_ATOMIC"; "GFP_KERNEL" does not in
// "GFP_KERNEL_ACCOUNT").
func ContainsWord(s, w string) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !IsIdentChar(s[j-1]) || !IsIdentChar(w[0])
		after := j+len(w) == len(s) || !IsIdentChar(s[j+len(w)]) || !IsIdentChar(w[len(w)-1])
		if before && after {
			return true
		}
		i = j + 1
	}
}

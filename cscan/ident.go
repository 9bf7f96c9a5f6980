package cscan

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

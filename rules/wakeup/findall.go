package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// stmtBreaks are the bytes where findAllStmts cuts a text: no match of the
// regexps it runs holds one of them except as its last byte.
const stmtBreaks = ";{}"

// findAllStmtsIndex returns re.FindAllStringSubmatchIndex(text, -1), running
// re only on the statements of text (the parts between two bytes of
// stmtBreaks, both included) for which may holds. It gives the same
// matches when may holds for every text holding a match of re, every
// match holds a byte of stmtBreaks at most as its last byte and never as
// its first, and re matches no empty string: then a match lies within one
// part, and a part starting with a break byte starts no match there (not
// even with ^ or \b, which see the break byte as in the whole text). The
// varTypes regexps have no literal prefix, so the regexp engine would try
// every position of a whole file.
func findAllStmtsIndex(re *regexp.Regexp, text string, may func(string) bool) [][]int {
	var out [][]int
	for start := 0; start < len(text); {
		end := len(text)
		if i := strings.IndexAny(text[start+1:], stmtBreaks); i >= 0 {
			end = start + 1 + i + 1 // the next break byte, included
		}
		if part := text[start:end]; may(part) {
			for _, m := range re.FindAllStringSubmatchIndex(part, -1) {
				for k := range m {
					if m[k] >= 0 {
						m[k] += start
					}
				}
				out = append(out, m)
			}
		}
		if end == len(text) {
			break
		}
		start = end - 1 // the break byte starts the next part
	}
	return out
}

// findAllStmts is findAllStmtsIndex's FindAllStringSubmatch.
func findAllStmts(re *regexp.Regexp, text string, may func(string) bool) [][]string {
	var out [][]string
	for _, m := range findAllStmtsIndex(re, text, may) {
		s := make([]string, len(m)/2)
		for k := range s {
			if m[2*k] >= 0 {
				s[k] = text[m[2*k]:m[2*k+1]]
			}
		}
		out = append(out, s)
	}
	return out
}

// isRegexpSpace reports whether c is in a regexp's \s ([\t\n\f\r ]).
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// wordThenSpace returns a test for texts spelling w followed by a space
// (the matches of "w\s+").
func wordThenSpace(w string) func(string) bool {
	return func(s string) bool {
		for i := 0; ; {
			j := strings.Index(s[i:], w)
			if j < 0 {
				return false
			}
			i += j + len(w)
			if i < len(s) && isRegexpSpace(s[i]) {
				return true
			}
		}
	}
}

// assignment returns a test for texts holding an identifier, '=' and an
// identifier (or '&' with amp), spaces aside: the matches of
// "[A-Za-z_]\w*\s*=\s*[A-Za-z_]" (or "...=\s*&").
func assignment(amp bool) func(string) bool {
	return func(s string) bool {
		for i := 0; ; i++ {
			j := strings.IndexByte(s[i:], '=')
			if j < 0 {
				return false
			}
			i += j
			p := i - 1
			for p >= 0 && isRegexpSpace(s[p]) {
				p--
			}
			n := i + 1
			for n < len(s) && isRegexpSpace(s[n]) {
				n++
			}
			if p >= 0 && cscan.IsIdentChar(s[p]) && n < len(s) && (cscan.IsIdentStart(s[n]) || amp && s[n] == '&') {
				return true
			}
		}
	}
}

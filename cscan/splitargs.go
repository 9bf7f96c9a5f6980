package cscan

import "strings"

// SplitArgs splits the arguments of a call or macro invocation whose text
// s starts just after its opening parenthesis, each trimmed. ok is false
// when a "}" or "]" closes what the parenthesis opened, or when the
// parenthesis is not closed within max bytes (hostile or truncated text
// is read a bounded stretch).
func SplitArgs(s string, max int) (args []string, ok bool) {
	depth, start := 0, 0
	for i := 0; i < len(s) && i < max; i++ {
		switch s[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			if depth == 0 {
				if s[i] != ')' {
					return nil, false
				}
				return append(args, strings.TrimSpace(s[start:i])), true
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, false
}

// MatchParen returns the index of the ")" closing the "(" at s[open], -1
// when s[open] is no "(" or it is not closed.
func MatchParen(s string, open int) int {
	if open < 0 || open >= len(s) || s[open] != '(' {
		return -1
	}
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// TopLevel returns the text of s outside braces and parentheses.
func TopLevel(s string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' || c == '(':
			depth++
		case (c == '}' || c == ')') && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// StripParens removes one pair of parentheses enclosing the whole of s
// ("(a ? f : g)" -> "a ? f : g", trimmed), and nothing from "(a) + (b)".
func StripParens(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s
			}
		}
	}
	return strings.TrimSpace(s[1 : len(s)-1])
}

// Ternary returns the indexes of the top-level "?" of s and of the ":"
// that closes it, -1 when s is no conditional ("a ? f : g").
func Ternary(s string) (q, colon int) {
	q, depth, open := -1, 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth != 0:
		case c == '?':
			if q < 0 {
				q = i
			}
			open++
		case c == ':' && q >= 0:
			if open--; open == 0 {
				return q, i
			}
		}
	}
	return -1, -1
}

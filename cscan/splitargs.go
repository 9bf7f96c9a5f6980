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

package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// What a branch condition says of a value (retheld.go): the classes of
// return value (summary.RetClass) it leaves on each branch.

// narrowing is what a condition says of one subject on each branch.
type narrowing struct {
	subject   string
	then, els RetClass
}

// narrowings parses a condition into what it says of its subjects: a
// variable, a member expression or a call tested for truth, against 0
// or NULL, for sign, or with IS_ERR()/IS_ERR_OR_NULL(), under '!',
// likely()/unlikely() and parentheses; a conjunction narrows its then
// branch by every conjunct, a disjunction its else branch.
func narrowings(cond string) []narrowing {
	c := trimCond(cond)
	for _, op := range []string{"&&", "||"} {
		parts := splitTop(c, op)
		if len(parts) < 2 {
			continue
		}
		var out []narrowing
		for _, p := range parts {
			for _, n := range narrowings(p) {
				// Each conjunct holds on the then branch, each
				// disjunct fails on the else branch; the other
				// branch says nothing of any one of them.
				if op == "&&" {
					n.els = summary.RetAny
				} else {
					n.then = summary.RetAny
				}
				out = append(out, n)
			}
		}
		return out
	}
	if strings.HasPrefix(c, "!") && !strings.HasPrefix(c, "!=") {
		var out []narrowing
		for _, n := range narrowings(c[1:]) {
			out = append(out, narrowing{subject: n.subject, then: n.els, els: n.then})
		}
		return out
	}
	if n, ok := atomNarrowing(c); ok {
		return []narrowing{n}
	}
	return nil
}

// atomNarrowing parses one test.
func atomNarrowing(c string) (narrowing, bool) {
	const z, e, p = summary.RetZero, summary.RetErr, summary.RetPos
	for _, f := range []struct {
		name      string
		then, els RetClass
	}{{"IS_ERR(", e, z | p}, {"IS_ERR_OR_NULL(", z | e, p}} {
		if strings.HasPrefix(c, f.name) && strings.HasSuffix(c, ")") && closes(c, len(f.name)-1) {
			return subjectNarrowing(c[len(f.name):len(c)-1], f.then, f.els)
		}
	}
	for _, op := range []struct {
		op        string
		then, els RetClass
	}{{"==", z, e | p}, {"!=", e | p, z}, {"<=", z | e, p}, {">=", z | p, e}, {"<", e, z | p}, {">", p, z | e}} {
		i := indexTop(c, op.op)
		if i < 0 {
			continue
		}
		l, r := strings.TrimSpace(c[:i]), strings.TrimSpace(c[i+len(op.op):])
		if isZero(r) {
			return subjectNarrowing(l, op.then, op.els)
		}
		if isZero(l) && (op.op == "==" || op.op == "!=") {
			return subjectNarrowing(r, op.then, op.els)
		}
		return narrowing{}, false
	}
	return subjectNarrowing(c, e|p, z)
}

// subjectNarrowing returns the narrowing of subject s when s is one a
// path can say something of: an identifier, a member expression or a
// call.
func subjectNarrowing(s string, then, els RetClass) (narrowing, bool) {
	s = trimCond(s)
	if s == "" || strings.ContainsAny(s, " +*/%&|^?:=<>!") && !strings.Contains(s, "(") {
		return narrowing{}, false
	}
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !cscan.IsIdent(s[:i]) || !strings.HasSuffix(s, ")") || !closes(s, i) {
			return narrowing{}, false
		}
	}
	return narrowing{subject: s, then: then, els: els}, true
}

func isZero(s string) bool {
	switch strings.TrimSpace(s) {
	case "0", "NULL", "false":
		return true
	}
	return false
}

// trimCond strips white space, enclosing parentheses and likely() or
// unlikely().
func trimCond(c string) string {
	for {
		c = strings.TrimSpace(c)
		switch {
		case strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") && closes(c, 0):
			c = c[1 : len(c)-1]
		case strings.HasPrefix(c, "likely(") && strings.HasSuffix(c, ")") && closes(c, 6):
			c = c[7 : len(c)-1]
		case strings.HasPrefix(c, "unlikely(") && strings.HasSuffix(c, ")") && closes(c, 8):
			c = c[9 : len(c)-1]
		default:
			return c
		}
	}
}

// closes reports whether the parenthesis at open closes at the end of c.
func closes(c string, open int) bool {
	return cscan.MatchParen(c, open) == len(c)-1
}

// indexTop returns the index of op outside parentheses (-1 when none).
func indexTop(c, op string) int {
	depth := 0
	for i := 0; i+len(op) <= len(c); i++ {
		switch c[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		}
		if depth == 0 && c[i:i+len(op)] == op {
			// "->" is no comparison, nor "<=" a "<".
			if op == ">" && i > 0 && c[i-1] == '-' || (op == "<" || op == ">") && i+1 < len(c) && (c[i+1] == '=' || c[i+1] == c[i]) ||
				(op == "<" || op == ">") && i > 0 && c[i-1] == c[i] {
				continue
			}
			return i
		}
	}
	return -1
}

// splitTop splits c at op outside parentheses.
func splitTop(c, op string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i+len(op) <= len(c); i++ {
		switch c[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		}
		if depth == 0 && c[i:i+len(op)] == op {
			out = append(out, c[start:i])
			start = i + len(op)
			i += len(op) - 1
		}
	}
	return append(out, c[start:])
}

// Terms splits a condition into its top-level terms joined by op ("&&"
// or "||"), each trimmed of white space, of likely()/unlikely() and of
// parentheses around it whole.
func Terms(cond, op string) []string {
	c := trimCond(cond)
	if op == "&&" && len(splitTop(c, "||")) > 1 {
		return []string{c} // && binds tighter: a || b && c is one term
	}
	var out []string
	for _, t := range splitTop(c, op) {
		if t = trimCond(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// negations are the comparison operators and their negations, longest
// first.
var negations = [][2]string{{"==", "!="}, {"!=", "=="}, {"<=", ">"}, {">=", "<"}, {"<", ">="}, {">", "<="}}

// Negate returns the negation of a condition: "!x" for x and x for
// "!x", a comparison with its operator turned, a conjunction or
// disjunction by De Morgan's laws, and "!(t)" for anything else.
func Negate(t string) string {
	t = trimCond(t)
	for _, ops := range [][2]string{{"||", "&&"}, {"&&", "||"}} {
		terms := Terms(t, ops[0])
		if len(terms) < 2 {
			continue
		}
		for i, u := range terms {
			terms[i] = Negate(u)
			if len(splitTop(terms[i], ops[0])) > 1 {
				terms[i] = "(" + terms[i] + ")"
			}
		}
		return strings.Join(terms, " "+ops[1]+" ")
	}
	if rest := trimCond(strings.TrimPrefix(t, "!")); rest != t && !strings.HasPrefix(t, "!=") &&
		(primary(rest) || strings.HasPrefix(strings.TrimSpace(t[1:]), "(") && closes(strings.TrimSpace(t[1:]), 0)) {
		return rest // !x, !(a & b); not !a == b
	}
	if indexTop(t, "?") < 0 && indexTop(t, ",") < 0 {
		for _, n := range negations {
			if i := indexTop(t, n[0]); i > 0 {
				return strings.TrimSpace(t[:i]) + " " + n[1] + " " + strings.TrimSpace(t[i+len(n[0]):])
			}
		}
	}
	if primary(t) {
		return "!" + t
	}
	return "!(" + t + ")"
}

// primary reports whether t has no operator outside parentheses: a
// name, a member path (a->b.c), a call or an index, dereferenced or not.
func primary(t string) bool {
	t = strings.TrimLeft(t, "* ")
	if t == "" {
		return false
	}
	depth := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth > 0:
		case c == '-' && i+1 < len(t) && t[i+1] == '>':
			i++
		case c == '.' || cscan.IsIdentChar(c):
		default:
			return false
		}
	}
	return true
}

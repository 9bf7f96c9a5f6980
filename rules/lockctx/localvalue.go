package lockctx

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A deciding argument is often a local variable set a few lines before
// the call rather than a constant or a parameter:
//
//	gfp_t gfp = GFP_KERNEL;
//	...
//	spin_lock(&q->lock);
//	p = kmalloc(n, gfp);
//
// The variable's value is one of the expressions the function assigns to
// it. When every one of them reaches the target, the call does whatever
// path set it; when one does not (`if (atomic) gfp = GFP_ATOMIC;`), the
// function chose the value at run time and the call is not known to
// reach. A single assignment from a parameter hands the parameter on.

var localIdentRe = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// argValues returns the values argument expression arg of a call in fn
// can have: the values stored in the member it reads (memberValues), the
// expressions fn assigns to it when it is a local variable whose
// assignments are all plain (localValues), the text of the driver's
// object-like macro it names (objectMacroValue), else arg itself.
func (r *Resolver) argValues(fn *cscan.Func, arg string) []string {
	arg = strings.TrimSpace(arg)
	if mv := r.memberValues(fn, arg); len(mv.vals) > 0 {
		return mv.vals
	}
	if !localIdentRe.MatchString(arg) || r.typ.ParamIndex(fn, arg) >= 0 {
		return []string{arg}
	}
	if strings.ToUpper(arg) == arg {
		// A named constant of the driver (objmacro.go).
		if fn != nil {
			if v := r.objectMacroValue(fn.File, arg); v != "" {
				return []string{v}
			}
		}
		return []string{arg}
	}
	if vs := r.localValues(fn, arg); len(vs) > 0 {
		return vs
	}
	return []string{arg}
}

// localValues returns the expressions fn assigns to its local variable
// name (the declaration's initialiser and every plain assignment), nil
// when name is not declared in fn's body, when its address is taken, or
// when something changes it otherwise (a compound assignment, an
// increment, an assignment inside a condition): its value is then not
// one of the assigned expressions.
func (r *Resolver) localValues(fn *cscan.Func, name string) []string {
	if fn == nil {
		return nil
	}
	key := fmt.Sprintf("lockctx.local:%s:%s:%d:%s", fn.File, fn.Name, fn.Start, name)
	if v, ok := r.facts[key]; ok {
		vs, _ := v.([]string)
		return vs
	}
	vs := r.scanLocalValues(fn, name)
	r.facts[key] = vs
	return vs
}

// scanLocalValues computes localValues from fn's statement tree.
func (r *Resolver) scanLocalValues(fn *cscan.Func, name string) []string {
	full := r.bodyOf(fn)
	if full == nil {
		return nil
	}
	var vals []string
	declared, bad := false, false
	cscan.Inspect(full.Body, func(s cscan.Stmt) {
		if bad {
			return
		}
		// A returned expression or a condition may not set it.
		text := ""
		cond, ok := cscan.CondOf(s)
		switch v := s.(type) {
		case *cscan.ExprStmt:
			text = v.Text
		case *cscan.ReturnStmt:
			cond = v.Expr
		default:
			if !ok {
				return
			}
		}
		if text == "" {
			bad = assignsIn(cond, name)
			return
		}
		d, vs, ok := assignments(text, name)
		if !ok {
			bad = true
			return
		}
		declared = declared || d
		vals = append(vals, vs...)
	})
	if bad || !declared {
		return nil
	}
	return vals
}

// assignsIn reports whether a condition changes name or takes its address.
func assignsIn(cond, name string) bool {
	_, vs, ok := assignments(cond, name)
	return !ok || len(vs) > 0
}

// assignments reads the uses of name in one statement's text: whether
// the statement declares it (a type word before it), and the values
// plainly assigned to it. ok is false when a use changes it any other way
// or takes its address.
func assignments(text, name string) (declares bool, vals []string, ok bool) {
	text = blankLiterals(text)
	if macroWriteRe.MatchString(text) && strings.Contains(text, name) {
		for _, m := range macroWriteRe.FindAllStringIndex(text, -1) {
			if args := text[m[1]:]; containsIdent(args[:min(len(args), strings.IndexByte(args+";", ';'))], name) {
				return false, nil, false
			}
		}
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return declares, vals, true
		}
		at, end := i+j, i+j+len(name)
		i = end
		if at > 0 && cscan.IsIdentChar(text[at-1]) || end < len(text) && cscan.IsIdentChar(text[end]) {
			continue
		}
		before := strings.TrimRight(text[:at], " \t")
		if strings.HasSuffix(before, ".") || strings.HasSuffix(before, "->") {
			continue
		}
		if strings.HasSuffix(before, "&") && !strings.HasSuffix(before, "&&") {
			return false, nil, false
		}
		if strings.HasSuffix(before, "++") || strings.HasSuffix(before, "--") {
			return false, nil, false
		}
		after := strings.TrimLeft(text[end:], " \t")
		if isDeclaration(before) {
			declares = true
		}
		switch {
		case strings.HasPrefix(after, "=="):
		case strings.HasPrefix(after, "="):
			vals = append(vals, strings.TrimSpace(rhs(after[1:])))
		case len(after) >= 2 && after[1] == '=' && strings.ContainsRune("|&^+-*/%", rune(after[0])),
			strings.HasPrefix(after, "<<="), strings.HasPrefix(after, ">>="),
			strings.HasPrefix(after, "++"), strings.HasPrefix(after, "--"):
			return false, nil, false
		}
	}
}

// declRe matches what may come before a declared name: type and
// qualifier words and '*' only, from the start of the statement.
var declRe = regexp.MustCompile(`^\s*(?:[A-Za-z_]\w*\s*|\*\s*)+$`)

// notTypeWords are words that start a statement but not a declaration.
var notTypeWords = map[string]bool{"return": true, "case": true, "sizeof": true, "else": true, "do": true, "goto": true, "if": true, "while": true}

// isDeclaration reports whether the text before a name declares it: type
// and qualifier words (gfp_t, const, struct tag) and '*' only, from the
// start of the statement.
func isDeclaration(before string) bool {
	if !declRe.MatchString(before) {
		return false
	}
	for _, w := range strings.Fields(strings.ReplaceAll(before, "*", " ")) {
		if notTypeWords[w] {
			return false
		}
	}
	return true
}

// macroWriteRe matches the macros that write a variable named in their
// arguments without taking its address: WRITE_ONCE(x, v), swap(a, b).
var macroWriteRe = regexp.MustCompile(`\b(?:WRITE_ONCE|swap)\s*\(`)

// containsIdent reports whether text names identifier name as a whole
// word.
func containsIdent(text, name string) bool {
	for i := strings.Index(text, name); i >= 0; {
		end := i + len(name)
		if (i == 0 || !cscan.IsIdentChar(text[i-1])) && (end >= len(text) || !cscan.IsIdentChar(text[end])) {
			return true
		}
		j := strings.Index(text[end:], name)
		if j < 0 {
			return false
		}
		i = end + j
	}
	return false
}

// blankLiterals replaces the contents of string and character literals
// with blanks: a name inside a message is not a use.
func blankLiterals(s string) string {
	b := []byte(s)
	var quote byte
	for i := 0; i < len(b); i++ {
		switch {
		case quote == 0 && (b[i] == '"' || b[i] == '\''):
			quote = b[i]
		case quote != 0 && b[i] == '\\':
			b[i] = ' '
			if i+1 < len(b) {
				b[i+1] = ' '
				i++
			}
		case quote != 0 && b[i] == quote:
			quote = 0
		case quote != 0:
			b[i] = ' '
		}
	}
	return string(b)
}

// rhs returns an assignment's right-hand side: the text up to the first
// ',' or ';' outside parentheses, braces and brackets.
func rhs(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return s[:i]
			}
		case ',', ';':
			if depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

// localArgReaches reports whether primitive call c in fn reaches the
// target through the values fn gives the local variable it passes as the
// deciding argument (`gfp_t gfp = GFP_KERNEL; kmalloc(n, gfp)`), or
// through a value chosen at run time (flagChosenReach): vc is then the
// condition on fn's flag parameter, if one chooses it.
func (r *Resolver) localArgReaches(fn *cscan.Func, c cscan.Call) (why string, vc *ParamCond, ok bool) {
	at, ok := r.m.target.(ArgTarget)
	if !ok || fn == nil {
		return "", nil, false
	}
	i, ok := at.ArgDependent(c)
	if !ok || i < 0 || i >= len(c.Args) {
		return "", nil, false
	}
	arg := strings.TrimSpace(c.Args[i])
	why, v, vc, ok := r.valuesReach(fn, at, c, arg)
	switch {
	case !ok:
		return "", nil, false
	case v == arg:
		// The table does not decide arg itself (reachesAt asks it
		// first): a value a flag chooses, written in the call.
		return why, vc, true
	}
	if mv := r.memberValues(fn, arg); len(mv.vals) > 0 {
		v += " " + mv.where
	}
	return why + " (" + arg + " is set to " + v + ")", vc, true
}

// valuesReach reports whether arg, an expression of fn passed as the
// deciding argument of primitive call c, reaches the target: with every
// value fn gives it (argValues), or, for a value chosen at run time, as
// flagChosenReach says (vc is then the condition on fn's flag parameter,
// if one chooses it). v is the value judged, the values joined by
// ", then " when fn assigns several.
func (r *Resolver) valuesReach(fn *cscan.Func, at ArgTarget, c cscan.Call, arg string) (why, v string, vc *ParamCond, ok bool) {
	vs := r.argValues(fn, arg)
	if why, ok := r.reachesWithAll(at, c, vs); ok {
		return why, strings.Join(vs, ", then "), nil, true
	}
	if len(vs) != 1 {
		return "", "", nil, false
	}
	v = vs[0]
	if v == arg {
		if t := r.orTernary(fn, arg); t != "" {
			v = t
		}
	}
	why, vc, ok = r.flagChosenReach(fn, at, c, v)
	return why, v, vc, ok
}

// orTernary returns mask expression arg with the one term it ors in that
// is a value chosen at run time, written in place or held by a local
// variable, written out with the other terms or-ed into each branch
// (`gfp | __GFP_ZERO` with gfp = `nowait ? GFP_NOWAIT : GFP_NOIO` is
// `nowait ? (GFP_NOWAIT) | __GFP_ZERO : (GFP_NOIO) | __GFP_ZERO`, and
// `__GFP_COMP | (atomic ? GFP_ATOMIC : GFP_KERNEL)` is `atomic ?
// (GFP_ATOMIC) | __GFP_COMP : (GFP_KERNEL) | __GFP_COMP`); "" when arg
// has no such term.
func (r *Resolver) orTernary(fn *cscan.Func, arg string) string {
	if strings.Contains(arg, "||") {
		return ""
	}
	terms := splitTop(arg, "|")
	if len(terms) < 2 {
		return ""
	}
	for i, t := range terms {
		t = strings.TrimSpace(t)
		v := unwrap(t)
		if q, _ := cscan.Ternary(v); q < 0 {
			vs := r.argValues(fn, t)
			if len(vs) != 1 || vs[0] == t {
				continue
			}
			v = unwrap(vs[0])
		}
		q, colon := cscan.Ternary(v)
		if q < 0 {
			continue
		}
		rest := ""
		for j, o := range terms {
			if j != i {
				rest += " | " + strings.TrimSpace(o)
			}
		}
		return v[:q] + "? (" + strings.TrimSpace(v[q+1:colon]) + ")" + rest + " : (" + strings.TrimSpace(v[colon+1:]) + ")" + rest
	}
	return ""
}

// flagChosenReach reads a deciding value that one of fn's flag
// parameters chooses, `active ? GFP_KERNEL : GFP_ATOMIC`: when exactly one
// branch reaches the target, the call reaches it for the callers whose
// flag selects that branch (a Strict condition: a caller passing a value
// the analysis cannot read does not count). A value chosen by any other
// test is left to the context rows (in_interrupt() ? ...) or unknown: a
// test of a request's flags or of a member (`flags & NOSLEEP`,
// `c->atomic`, `nd->flags & LOOKUP_RCU`) is how callers in atomic context
// ask for the atomic branch.
func (r *Resolver) flagChosenReach(fn *cscan.Func, at ArgTarget, c cscan.Call, v string) (string, *ParamCond, bool) {
	v = unwrap(v)
	q, colon := cscan.Ternary(v)
	if q < 0 {
		return "", nil, false
	}
	name, nonzero, ok := flagTest(v[:q])
	bit := ""
	if !ok {
		if name, bit, nonzero, ok = r.bitCond(v[:q]); !ok {
			return "", nil, false
		}
	}
	j := r.typ.ParamIndex(fn, name)
	if j < 0 || bit == "" && !r.flagParam(fn, j) || bit != "" && !r.bitParam(fn, j) {
		return "", nil, false
	}
	whyA, a := at.ReachesWith(c, v[q+1:colon])
	whyB, b := at.ReachesWith(c, v[colon+1:])
	if a == b {
		return "", nil, false
	}
	why := whyA
	if b {
		why = whyB
	}
	return why, &ParamCond{Param: j, True: nonzero == a, Bit: bit, Strict: true}, true
}

// reachesWithAll reports whether call c reaches the target with every one
// of the values vs in its deciding argument, and why (for the first).
func (r *Resolver) reachesWithAll(at ArgTarget, c cscan.Call, vs []string) (string, bool) {
	why := ""
	for i, v := range vs {
		w, ok := at.ReachesWith(c, v)
		if !ok {
			return "", false
		}
		if i == 0 {
			why = w
		}
	}
	return why, len(vs) > 0
}

// valueParam returns the index of fn's parameter that argument expression
// arg hands on (argParam), directly or as the one value fn assigns to
// the local variable arg names (`gfp_t gfp = flags | __GFP_ZERO;`), or -1.
func (r *Resolver) valueParam(fn *cscan.Func, arg string) int {
	if j := r.argParam(fn, arg); j >= 0 {
		return j
	}
	if vs := r.argValues(fn, arg); len(vs) == 1 && vs[0] != strings.TrimSpace(arg) {
		return r.argParam(fn, vs[0])
	}
	return -1
}

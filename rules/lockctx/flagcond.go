package lockctx

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// Reaches that depend on a flag parameter: a function that takes a mutex
// only on the branch its bool or integer parameter selects (if
// (can_sleep) ... else schedule work) reaches the target only for callers
// passing a value that selects it. Its summary's Reach carries the
// condition (ParamCond); at each call the argument is read: a constant
// (true, 0, or a macro defined as one, CAN_SLEEP) decides, the caller's
// own parameter carries the condition up, anything else counts as
// reaching unless the condition is Strict.

// ParamCond is the condition on a parameter a Reach needs (package
// summary).
type ParamCond = summary.ParamCond

// maxDefineDepth bounds the local #include levels searched for a macro's
// definition.
const maxDefineDepth = 3

// guardFlag returns the condition on one of fn's flag parameters that
// guards gs impose (the innermost guard that tests one), or nil. A guard
// the target counts as conditional gives a Strict condition.
func (r *Resolver) guardFlag(fn *cscan.Func, gs []cscan.Guard) *ParamCond {
	if len(gs) == 0 || !r.hasFlagParam(fn) {
		return nil
	}
	for i := len(gs) - 1; i >= 0; i-- {
		g := gs[i]
		var conds []string
		want := true
		switch g.Kind {
		case "case":
			if pc := r.caseCond(fn, gs[:i+1]); pc != nil {
				return pc
			}
			continue
		case "if":
			conds = splitTop(unwrap(g.Cond), "&&")
		case "else":
			c, ok := r.elseCondOf(fn, g.Line)
			if !ok {
				continue
			}
			conds, want = splitTop(unwrap(c), "||"), false
		default:
			continue
		}
		for _, c := range conds {
			name, nonzero, ok := flagTest(c)
			bit := ""
			if !ok {
				if name, bit, nonzero, ok = r.bitCond(c); !ok {
					continue
				}
			}
			j := r.typ.ParamIndex(fn, name)
			if j < 0 || bit == "" && !r.flagParam(fn, j) || bit != "" && !r.bitParam(fn, j) {
				continue
			}
			return &ParamCond{Param: j, True: nonzero == want, Bit: bit, Strict: g.Kind == "if" && r.m.conditional([]cscan.Guard{g})}
		}
	}
	return nil
}

// flagParam reports whether parameter j of fn is a scalar a caller can
// pass as a constant flag (bool or an integer type, no pointer).
func (r *Resolver) flagParam(fn *cscan.Func, j int) bool {
	ws, ok := r.scalarDecl(fn, j)
	return ok && slices.ContainsFunc(ws, func(w string) bool {
		return slices.Contains([]string{"bool", "int", "unsigned", "u8", "u16", "u32", "long", "short"}, w)
	})
}

// hasFlagParam reports whether fn has a named scalar parameter
// (bitParam): a flag a guard may test (flagParam), or a flags word.
func (r *Resolver) hasFlagParam(fn *cscan.Func) bool {
	for j := range r.typ.ParamDecls(fn) {
		if r.bitParam(fn, j) {
			return true
		}
	}
	return false
}

// bitParam reports whether parameter j of fn can be a flags word whose
// bits a caller sets: a named scalar of any integer type, a typedef
// included (blk_opf_t, fmode_t, u64), not a struct or a float.
func (r *Resolver) bitParam(fn *cscan.Func, j int) bool {
	ws, ok := r.scalarDecl(fn, j)
	return ok && len(ws) >= 2 && !slices.ContainsFunc(ws, func(w string) bool {
		return slices.Contains([]string{"struct", "union", "float", "double"}, w)
	})
}

// scalarDecl returns the words of parameter j's declaration in fn when
// it declares no pointer, array or function.
func (r *Resolver) scalarDecl(fn *cscan.Func, j int) ([]string, bool) {
	ds := r.typ.ParamDecls(fn)
	if j < 0 || j >= len(ds) || strings.ContainsAny(ds[j], "*[(") {
		return nil, false
	}
	return strings.Fields(ds[j]), true
}

// reachRank orders the chains a summary may choose from: certain before
// uncertain, then taken whatever the parameters before conditional, and
// a Strict condition last.
func reachRank(p *Reach) int {
	n := 0
	if p.Weak {
		n += 4
	}
	if p.Cond != nil {
		n++
		if p.Cond.Strict {
			n++
		}
	}
	return n
}

// Unconditional reports whether p is a chain that counts without reading
// the arguments of a call: set, and with no Strict condition (a consumer
// that cannot read them, such as a function passed by name, takes a
// condition that counts unless disproved as met).
func Unconditional(p *Reach) bool {
	return p != nil && (p.Cond == nil || !p.Cond.Strict)
}

// bodyOf returns fn with its statement tree: fn itself, or for a tree
// function, which the index holds without statements, fn re-parsed; nil
// when neither has one.
func (r *Resolver) bodyOf(fn *cscan.Func) *cscan.Func {
	if fn.Body != nil {
		return fn
	}
	if r.ix == nil {
		return nil
	}
	if full := r.ix.Full(fn); full != nil && full.Body != nil {
		return full
	}
	return nil
}

// elseConds returns the condition of every if in fn that has an else
// branch, by the line the else branch starts at; one decode of the body
// answers every else guard of the function.
func (r *Resolver) elseConds(fn *cscan.Func) map[int]string {
	full := r.bodyOf(fn)
	if full == nil {
		return nil
	}
	byLine := map[int]string{}
	cscan.Inspect(full.Body, func(s cscan.Stmt) {
		if v, ok := s.(*cscan.IfStmt); ok && v.Else != nil {
			if _, seen := byLine[v.ElseLine]; !seen {
				byLine[v.ElseLine] = v.Cond
			}
		}
	})
	return byLine
}

// condGuarded reports whether guards gs of a call in fn make reaching the
// target conditional (the target's Conditional, cond_sleep_guards), or
// whether the call is in the else branch of a test whose true case is the
// atomic one (ElseTarget: "if (miter->__flags & SG_MITER_ATOMIC)
// kmap_atomic(); else kmap();").
func (r *Resolver) condGuarded(fn *cscan.Func, gs []cscan.Guard) bool {
	if r.m.conditional(gs) {
		return true
	}
	et, ok := r.m.target.(ElseTarget)
	if !ok {
		return false
	}
	for _, g := range gs {
		if g.Kind != "else" {
			continue
		}
		if cond, ok := r.elseCondOf(fn, g.Line); ok && et.ElseConditional(cond) {
			return true
		}
	}
	return false
}

// elseCondOf returns the condition of the if whose else branch starts at
// line in fn, decoding fn once however many else guards it has.
func (r *Resolver) elseCondOf(fn *cscan.Func, line int) (string, bool) {
	byLine, ok := r.elseCondCache[fn]
	if !ok {
		byLine = r.elseConds(fn)
		r.elseCondCache[fn] = byLine
	}
	c, ok := byLine[line]
	return c, ok && c != ""
}

// flagTest reads a condition testing a name alone: "x", "!x", "x == 0",
// "x != false", likely(x); nonzero is whether it holds when x is nonzero.
func flagTest(c string) (name string, nonzero, ok bool) {
	c, nonzero, ok = truthTest(c, false)
	if !ok || !identRe.MatchString(c) {
		return "", false, false
	}
	return c, nonzero, true
}

// truthTest strips what a condition does to the truth of its operand:
// likely()/unlikely(), negations, a comparison with a literal; nonzero
// is whether c holds when the operand left is nonzero. For a bitwise
// operand (masked) a comparison is read only with the operand bracketed
// (`f & BIT == 0` is f & (BIT == 0) in C) and with zero.
func truthTest(c string, masked bool) (operand string, nonzero, ok bool) {
	c = unwrap(c)
	for _, f := range []string{"likely", "unlikely"} {
		if rest, ok := strings.CutPrefix(c, f+"("); ok && strings.HasSuffix(rest, ")") {
			c = unwrap(rest[:len(rest)-1])
		}
	}
	nonzero = true
	for strings.HasPrefix(c, "!") && !strings.HasPrefix(c, "!=") {
		rest := strings.TrimSpace(c[1:])
		if masked && unwrap(rest) == rest && !primary(rest) {
			return "", false, false // !f & BIT is (!f) & BIT
		}
		c, nonzero = unwrap(rest), !nonzero
	}
	for _, op := range []string{"==", "!="} {
		l, rhs, found := strings.Cut(c, op)
		if !found {
			continue
		}
		v, known := literalTruth(strings.TrimSpace(rhs))
		if l = strings.TrimSpace(l); !known || masked && (v || unwrap(l) == l) {
			return "", false, false
		}
		c = unwrap(l)
		if (op == "==") != v {
			nonzero = !nonzero
		}
	}
	return c, nonzero, true
}

// unwrap trims white space and parentheses around the whole of s.
func unwrap(s string) string {
	s = strings.TrimSpace(s)
	for len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' && closes(s, 0) {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// literalTruth reads a constant's truth: true, false, an integer.
func literalTruth(s string) (v, ok bool) {
	switch s {
	case "true":
		return true, true
	case "false", "NULL":
		return false, true
	}
	s = strings.TrimRight(strings.ToLower(s), "ul")
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		return n != 0, true
	}
	return false, false
}

// flagValue returns the truth of expression expr as fn's file sees it: a
// literal, or a macro defined as one in the file or the local headers it
// includes; known is false for anything else.
func (r *Resolver) flagValue(fn *cscan.Func, expr string) (v, known bool) {
	expr = unwrap(expr)
	neg := false
	for strings.HasPrefix(expr, "!") {
		expr, neg = unwrap(expr[1:]), !neg
	}
	if v, ok := literalTruth(expr); ok {
		return v != neg, true
	}
	if !identRe.MatchString(expr) || strings.ToUpper(expr) != expr || r.ix == nil {
		return false, false
	}
	def, ok := r.define(fn.File, expr, maxDefineDepth, map[string]bool{})
	if !ok {
		return false, false
	}
	if v, ok := literalTruth(unwrap(def)); ok {
		return v != neg, true
	}
	return false, false
}

// define returns the body of "#define name body" in file or the local
// headers it includes, to depth levels (kept per depth in the resolver's
// facts, so that the answer does not depend on which look-up came first).
func (r *Resolver) define(file, name string, depth int, seen map[string]bool) (string, bool) {
	if seen[file] {
		return "", false
	}
	seen[file] = true
	key := "define\x00" + file + "\x00" + name + "\x00" + strconv.Itoa(depth)
	if v, ok := r.facts[key]; ok {
		d, _ := v.(string)
		return d, ok && d != ""
	}
	lines := r.typ.FileLines(file)
	text := lines.Text()
	body := ""
	if i := strings.Index(text, name); i >= 0 {
		re := regexp.MustCompile(`(?m)^[ \t]*#[ \t]*define[ \t]+` + regexp.QuoteMeta(name) + `[ \t]+([^\n/]+)`)
		if m := re.FindStringSubmatch(text); m != nil {
			body = strings.TrimSpace(m[1])
		}
	}
	if body == "" && depth > 0 {
		for _, inc := range r.typ.Includes(file, false) {
			if d, ok := r.define(inc, name, depth-1, seen); ok {
				body = d
				break
			}
		}
	}
	r.facts[key] = body
	return body, body != ""
}

// condAt evaluates the condition rc of a callee's reach at call c made by
// fn: keep is false when the argument shows the chain is not taken; out
// is the condition left on fn's own parameters (the argument is one), or
// nil when the chain counts unconditionally at this call.
func (r *Resolver) condAt(fn *cscan.Func, c cscan.Call, rc *ParamCond) (keep bool, out *ParamCond) {
	if rc == nil {
		return true, nil
	}
	if rc.Param < 0 || rc.Param >= len(c.Args) {
		return !rc.Strict, nil
	}
	arg := c.Args[rc.Param]
	if rc.Value != "" {
		return r.caseValueAt(fn, arg, rc)
	}
	if rc.Bit != "" {
		return r.bitAt(fn, arg, rc)
	}
	if v, known := r.flagValue(fn, arg); known {
		return v == rc.True, nil
	}
	name, nonzero, ok := flagTest(arg)
	if ok {
		if j := r.typ.ParamIndex(fn, name); j >= 0 && r.flagParam(fn, j) {
			return true, &ParamCond{Param: j, True: rc.True == nonzero, Strict: rc.Strict}
		}
	}
	return !rc.Strict, nil
}

// CondAt evaluates a reach's parameter condition at call c made by fn
// (see condAt): whether the chain may be taken there, and the condition
// left on fn's own parameters.
func (r *Resolver) CondAt(fn *cscan.Func, c cscan.Call, rc *ParamCond) (keep bool, out *ParamCond) {
	return r.condAt(fn, c, rc)
}

// SomeCallerMay reports whether a caller of fn the index knows may pass a
// value satisfying c (its argument is not known to miss it), or fn has no
// caller the index knows, or its address is stored (a caller through a
// pointer or from outside the tree may pass anything).
func (r *Resolver) SomeCallerMay(fn *cscan.Func, c *ParamCond) bool {
	if r.ix == nil || c == nil || len(r.ix.AssignsOf(fn.Name)) > 0 {
		return true // a caller through a pointer may pass anything
	}
	may := *c
	may.Strict = false
	seen := false
	for _, site := range r.ix.Callers(fn.Name) {
		if site.Func == nil || fn.Static && site.Func.File != fn.File {
			continue
		}
		seen = true
		if keep, _ := r.condAt(site.Func, site.Call, &may); keep {
			return true
		}
	}
	return !seen
}

// callCond returns the condition under which a reach through call c in fn
// with callee condition rc is taken: nil and true when unconditionally,
// false when never. conditional says the call's guards make the target
// conditional; such a call counts only when a guard tests one of fn's
// flag parameters (a Strict condition).
func (r *Resolver) callCond(fn *cscan.Func, c cscan.Call, rc *ParamCond, conditional bool) (*ParamCond, bool) {
	keep, out := r.condAt(fn, c, rc)
	if !keep {
		return nil, false
	}
	g := r.guardFlag(fn, c.Guards)
	if conditional {
		if g == nil || !g.Strict {
			return nil, false
		}
		return g, true
	}
	if out != nil {
		return out, true
	}
	return g, true
}

// primCond is callCond for a primitive call c whose deciding value needs
// condition vc on one of fn's flag parameters (flagChosenReach; nil when
// none): the value's condition, unless a guard of the call tests a flag
// parameter too: the same one for the other value never reaches, and
// another one would need both conditions, which a Reach cannot carry, so
// the primitive is left out.
func (r *Resolver) primCond(fn *cscan.Func, c cscan.Call, vc *ParamCond, conditional bool) (*ParamCond, bool) {
	cond, ok := r.callCond(fn, c, nil, conditional)
	if !ok || vc == nil {
		return cond, ok
	}
	if cond != nil && (cond.Param != vc.Param || cond.True != vc.True || cond.Value != vc.Value || cond.Bit != vc.Bit) {
		// Two conditions, or contrary ones: a Reach carries one, and
		// the primitive is not known to be reached.
		return nil, false
	}
	return vc, true
}

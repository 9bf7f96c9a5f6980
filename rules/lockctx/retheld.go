package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// Held on return, conditional on the return value.
//
// A helper may return with a context held only when it succeeds
// (lock_task_sighand() returns non-NULL with siglock held; a lock helper
// returns 0 with its raw spinlock held and -EINVAL without). The walker
// follows that through variables: a value assigned from such a call
// carries the context as a CondHeld of the variable, held once a test
// of the variable leaves only the classes of return value that hold it
// (`if (ret < 0) return ret;` leaves 0), and dropped when the test
// leaves only the others. Tests of a variable are also remembered as
// Facts on the path, which is how a helper's own summary finds that it
// returns NULL exactly on the path that did not take the lock
// (__lock_task_sighand(): "if (!sighand) break;" before the lock).

// RetClass is a set of classes of return value (summary.RetClass).
type RetClass = summary.RetClass

// CondHeld is a context held exactly when the variable Var holds a value
// of the classes When (and not when it holds one of Not).
type CondHeld struct {
	Held
	Var       string
	When, Not RetClass
}

// Fact is what the path says of a variable's value: one of the classes
// Can.
type Fact struct {
	Var string
	Can RetClass
}

// literalClass classifies a return expression by its text: zero, an
// error, or anything else (a value whose class is unknown counts as
// true, as it always has: "return obj;" after taking obj's lock).
func literalClass(expr string) RetClass {
	e := strings.TrimSpace(expr)
	switch {
	case e == "0" || e == "false" || e == "NULL" || e == "(0)":
		return summary.RetZero
	case strings.HasPrefix(e, "-") || strings.HasPrefix(e, "ERR_PTR("):
		return summary.RetErr
	}
	return summary.RetPos
}

// fact returns what st says of v (0 when nothing).
func (s State) fact(v string) RetClass {
	for _, f := range s.Facts {
		if f.Var == v {
			return f.Can
		}
	}
	return 0
}

// setFact records that v holds one of can (0: forget v).
func (s *State) setFact(v string, can RetClass) {
	for i, f := range s.Facts {
		if f.Var == v {
			if can == 0 {
				s.Facts = append(s.Facts[:i:i], s.Facts[i+1:]...)
			} else {
				s.Facts[i].Can = can
			}
			return
		}
	}
	if can != 0 {
		s.Facts = append(s.Facts, Fact{Var: v, Can: can})
	}
}

// retClass returns the classes a return of expr may give in st.
func (s State) retClass(expr string) RetClass {
	e := strings.TrimSpace(expr)
	if c := s.fact(e); c != 0 {
		return c
	}
	for _, c := range s.Cond {
		if c.Var == e {
			return summary.RetAny
		}
	}
	return literalClass(e)
}

// narrow returns st on a branch where subject holds one of can: the
// fact is recorded, and the contexts held conditionally on the subject
// are settled when the classes left decide them.
func narrow(st State, subject string, can RetClass) State {
	if st.Dead || can == summary.RetAny {
		return st
	}
	st = st.Clone()
	if f := st.fact(subject); f != 0 {
		can &= f
	}
	st.setFact(subject, can)
	keep := st.Cond[:0:0]
	for _, c := range st.Cond {
		if c.Var != subject {
			keep = append(keep, c)
			continue
		}
		left := can & (c.When | c.Not)
		switch {
		case left != 0 && left&^c.When == 0:
			st.settle(c.Held, true)
		case left&c.When == 0:
			st.settle(c.Held, false)
		default:
			keep = append(keep, c)
		}
	}
	st.Cond = keep
	return st
}

// settle makes a context held on some paths held on this one (held) or
// not held here.
func (s *State) settle(h Held, held bool) {
	for i := len(s.Held) - 1; i >= 0; i-- {
		if s.Held[i].Kind == h.Kind && s.Held[i].Key == h.Key {
			if held {
				s.Held[i].Must = true
				return
			}
			if !s.Held[i].Must {
				s.Held = append(s.Held[:i:i], s.Held[i+1:]...)
			}
			return
		}
	}
	if held {
		h.Must = true
		s.acquire(h)
	}
}

// narrowBranches applies what cond says of its subjects to the states
// of its two branches.
func narrowBranches(cond string, thenSt, elseSt State) (State, State) {
	for _, n := range narrowings(cond) {
		thenSt = narrow(thenSt, n.subject, n.then)
		elseSt = narrow(elseSt, n.subject, n.els)
	}
	return thenSt, elseSt
}

// assignment splits an expression statement "v = rhs;" (or a
// declaration "type *v = rhs;") into v and rhs; compound assignments
// give ok with rhs "" (the value is unknown after).
func assignment(text string) (v, rhs string, ok bool) {
	t := strings.TrimSuffix(strings.TrimSpace(text), ";")
	i := indexTop(t, "=")
	for i > 0 && i+1 < len(t) && t[i+1] == '=' {
		return "", "", false
	}
	if i <= 0 {
		return "", "", false
	}
	lhs := strings.TrimSpace(t[:i])
	compound := strings.ContainsRune("+-*/%&|^<>!", rune(lhs[len(lhs)-1]))
	if compound {
		lhs = strings.TrimSpace(strings.TrimRight(lhs, "+-*/%&|^<>!"))
	}
	if lhs == "" || lhs[0] == '*' {
		return "", "", false
	}
	if j := strings.LastIndexAny(lhs, " *"); j >= 0 && !strings.Contains(lhs, "->") && !strings.Contains(lhs, ".") {
		lhs = lhs[j+1:]
	}
	if lhs == "" || strings.ContainsAny(lhs, " ()[]*") {
		return "", "", false
	}
	if compound {
		return lhs, "", true
	}
	return lhs, strings.TrimSpace(t[i+1:]), true
}

// assign updates st for "v = rhs" whose calls are cs, walked already: a
// call returning with contexts held on some of its values (CondAcquires)
// holds them conditionally on v; a literal is a fact of v; anything
// else forgets what was known of v.
func (w *walker) assign(st State, v, rhs string, cs []cscan.Call) State {
	if st.Dead {
		return st
	}
	st = st.Clone()
	st.setFact(v, 0)
	keep := st.Cond[:0:0]
	for _, c := range st.Cond {
		if c.Var != v {
			keep = append(keep, c)
		}
	}
	st.Cond = keep
	if rhs == "" {
		return st
	}
	if literalClass(rhs) != summary.RetPos || isZero(rhs) {
		st.setFact(v, literalClass(rhs))
		return st
	}
	if len(cs) == 0 {
		return st
	}
	c := cs[len(cs)-1]
	if !strings.HasPrefix(stripCasts(rhs), c.Name+"(") {
		return st
	}
	if a := w.r.m.Classify(c); a.Op == lockmodel.TryTake && wholeCall(stripCasts(rhs), c.Name) {
		// A trylock's result kept in a variable (locked =
		// spin_trylock(l); pte = get_locked_pte(mm, addr, &ptl)): held
		// where the variable tests true or non-NULL.
		st.Cond = append(st.Cond, CondHeld{Var: v, When: summary.RetPos, Not: summary.RetZero,
			Held: Held{Kind: a.Kind, Key: a.Key, At: w.step(c.Line, CallText(c))}})
		st.setFact(v, summary.RetPos|summary.RetZero)
		return st
	}
	if w.r.m.primitive(c) {
		return st
	}
	cs0 := w.r.calleeSummary(c, w.fn)
	if cs0 == nil || len(cs0.CondAcquires) == 0 {
		return st
	}
	var can RetClass
	for _, e := range cs0.CondAcquires {
		when, not := e.Masks()
		can |= when | not
		st.Cond = append(st.Cond, CondHeld{Var: v, When: when, Not: not,
			Held: Held{Kind: e.Kind, Key: e.Key, At: w.step(c.Line, "calls "+c.Name+"()"), Via: e.Steps}})
	}
	st.setFact(v, can)
	return st
}

// wholeCall reports whether expr is one call of name and nothing else
// ("f(x)", not "f(x) == 0" or "f(x) ? 0 : -EBUSY").
func wholeCall(expr, name string) bool {
	expr = strings.TrimSpace(expr)
	return strings.HasPrefix(expr, name+"(") && closes(expr, len(name))
}

// stripCasts drops leading casts ("(void *)f(x)").
func stripCasts(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "(") {
		j := strings.IndexByte(s, ')')
		if j < 0 || strings.ContainsAny(s[1:j], "(,") {
			return s
		}
		s = strings.TrimSpace(s[j+1:])
	}
	return s
}

// condHeldOn returns the contexts a call in an if's condition holds on
// each branch from its callee's conditional acquires cs, by what the
// condition says of the call; ok is false when it says nothing.
func condHeldOn(cond string, c cscan.Call, es []Effect, at func(summary.Effect) Held) (onTrue, onFalse []Held, ok bool) {
	for _, n := range narrowings(cond) {
		if !strings.HasPrefix(n.subject, c.Name+"(") {
			continue
		}
		ok = true
		for _, e := range es {
			when, not := e.Masks()
			if l := n.then & (when | not); l != 0 && l&^when == 0 {
				onTrue = append(onTrue, at(e))
			}
			if l := n.els & (when | not); l != 0 && l&^when == 0 {
				onFalse = append(onFalse, at(e))
			}
		}
	}
	return onTrue, onFalse, ok
}

// mergeConds joins the conditional contexts and facts of two paths into
// out (mergeStates): a fact known on both is their union; a conditional
// context of both stays, one of a path whose facts say its variable's
// value does not hold it on the other stays too; and a context held on
// one path only, where the two paths disagree on a variable's class
// (held with sighand non-NULL, not with it NULL), is held conditionally
// on that variable.
func mergeConds(a, b State, out *State) {
	if len(a.Facts)+len(b.Facts)+len(a.Cond)+len(b.Cond) == 0 {
		return
	}
	out.Facts = nil
	for _, f := range a.Facts {
		if g := b.fact(f.Var); g != 0 {
			out.Facts = append(out.Facts, Fact{Var: f.Var, Can: f.Can | g})
		}
	}
	out.Cond = nil
	keepFrom := func(x, y State) {
		for _, c := range x.Cond {
			if hasCond(out.Cond, c) {
				continue
			}
			if hasCond(y.Cond, c) {
				out.Cond = append(out.Cond, c)
				continue
			}
			if f := y.fact(c.Var); f != 0 && f&c.When == 0 && !heldIn(y, c.Held) {
				c.Not |= f
				out.Cond = append(out.Cond, c)
			}
		}
	}
	keepFrom(a, b)
	keepFrom(b, a)
	correlate := func(x, y State) {
		for _, h := range x.Held {
			if !h.Must || heldIn(y, h) || hasCondOf(out.Cond, h) {
				continue
			}
			for _, f := range x.Facts {
				if g := y.fact(f.Var); g != 0 && g&f.Can == 0 {
					out.Cond = append(out.Cond, CondHeld{Held: h, Var: f.Var, When: f.Can, Not: g})
					break
				}
			}
		}
	}
	correlate(a, b)
	correlate(b, a)
}

func hasCond(cs []CondHeld, c CondHeld) bool {
	for _, x := range cs {
		if x.Var == c.Var && x.Kind == c.Kind && x.Key == c.Key {
			return true
		}
	}
	return false
}

func hasCondOf(cs []CondHeld, h Held) bool {
	for _, x := range cs {
		if x.Kind == h.Kind && x.Key == h.Key {
			return true
		}
	}
	return false
}

// retEffects returns the contexts held at every return (acq) and those
// held exactly at the returns of some classes of value (cond, with their
// When and Not), from the states at each return and the returns'
// expressions: a context held on every path to a return holds for every
// class the return may give, one held conditionally on the returned
// variable for the classes its condition says.
func retEffects(rets []State, exprs []string) (acq, cond []Effect) {
	type ctx struct {
		h         Held
		held, not RetClass
	}
	var cs []*ctx
	find := func(h Held) *ctx {
		for _, c := range cs {
			if c.h.Kind == h.Kind && c.h.Key == h.Key {
				return c
			}
		}
		c := &ctx{h: h}
		cs = append(cs, c)
		return c
	}
	for _, st := range rets {
		for _, h := range st.Held {
			if h.Must {
				find(h)
			}
		}
		for _, c := range st.Cond {
			find(c.Held)
		}
	}
	for i, st := range rets {
		e := strings.TrimSpace(exprs[i])
		class := st.retClass(e)
		for _, c := range cs {
			var held RetClass
			switch {
			case mustHeld(st, c.h):
				held = class
			default:
				for _, x := range st.Cond {
					if x.Var == e && x.Kind == c.h.Kind && x.Key == c.h.Key {
						held = class & x.When
					}
				}
			}
			c.held |= held
			c.not |= class &^ held
		}
	}
	for _, c := range cs {
		e := Effect{Kind: c.h.Kind, Key: c.h.Key, Steps: append([]report.Step{c.h.At}, c.h.Via...)}
		switch {
		case c.not == 0:
			acq = append(acq, e)
		case c.held != 0 && c.held&c.not == 0:
			e.When, e.Not = c.held, c.not
			cond = append(cond, e)
		}
	}
	return acq, cond
}

// mustHeld reports whether st holds h's context on every path.
func mustHeld(st State, h Held) bool {
	for _, x := range st.Held {
		if x.Kind == h.Kind && x.Key == h.Key && x.Must {
			return true
		}
	}
	return false
}

// addEffects appends to es the effects of add on contexts es lacks.
func addEffects(es, add []Effect) []Effect {
	for _, a := range add {
		dup := false
		for _, e := range es {
			dup = dup || e.Kind == a.Kind && e.Key == a.Key
		}
		if !dup {
			es = append(es, a)
		}
	}
	return es
}

// returnsValue reports whether fn returns a value somewhere.
func returnsValue(fn *cscan.Func) bool {
	for _, r := range fn.Returns {
		if strings.TrimSpace(r.Expr) != "" {
			return true
		}
	}
	return false
}

// condSides reports on which branch of an if whose condition holds call
// c its conditional acquire e holds: by what the condition says of the
// call, else (a condition too complex to read) on the true branch of a
// plain call, the false one of a negated call, as a trylock.
func condSides(cond string, c cscan.Call, e Effect, neg bool) (onTrue, onFalse bool) {
	at := func(Effect) Held { return Held{} }
	if t, f, ok := condHeldOn(cond, c, []Effect{e}, at); ok {
		return len(t) > 0, len(f) > 0
	}
	if when, _ := e.Masks(); when&summary.RetPos == 0 {
		return false, false
	}
	return !neg, neg
}

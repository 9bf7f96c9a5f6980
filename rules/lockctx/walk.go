package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// Visit is what the walker reports for every call: the call, the
// atomic contexts held just before it, and (for a call that reaches the
// target) the proof.
type Visit struct {
	// Call is the call visited.
	Call cscan.Call
	// State holds the contexts held just before the call.
	State State
	// Reach is set when the call reaches a target primitive (directly or
	// through its callee's summary), unless its guards make that
	// conditional.
	Reach *Reach
	// ArgReaches are reaches that depend on what the walked function's
	// caller passes in one of its parameters (a gfp_t handed down to an
	// allocator).
	ArgReaches []ArgReach
}

// walker follows one function's statement tree path-sensitively,
// tracking the atomic contexts held.
type walker struct {
	r     *Resolver
	fn    *cscan.Func
	visit func(v Visit)
	// pending goto states per label.
	pending map[string]State
	// breaks and continues of the innermost breakable construct.
	breaks []*State
	// Drops are releases of contexts the function did not enter, the
	// first of each kind and key (what the summary keeps, dedupEffects),
	// kept when keepDrops is set (refineEffects reads them; Walk and
	// WalkFrom return states only).
	Drops     []Effect
	keepDrops bool
	// rets are the states at each return, retExprs their expressions.
	rets     []State
	retExprs []string
	// blockGuards are guard() acquisitions to release at block end.
	blockGuards [][]Held
}

// newDrop reports whether a release of kind and key not entered is to be
// added to Drops: drops are kept, and none of that kind and key is yet (a
// path-sensitive walk meets the same release once per path).
func (w *walker) newDrop(kind, key string) bool {
	if !w.keepDrops {
		return false
	}
	for _, d := range w.Drops {
		if d.Kind == kind && d.Key == key {
			return false
		}
	}
	return true
}

func newWalker(r *Resolver, fn *cscan.Func, visit func(Visit)) *walker {
	return &walker{r: r, fn: fn, visit: visit, pending: map[string]State{}}
}

// run walks the whole body from an empty state (or entry) and returns the
// state at the end.
func (w *walker) run(entry State) State {
	if w.fn.Body == nil {
		return entry
	}
	return w.stmt(w.fn.Body, entry)
}

func (w *walker) step(line int, what string) report.Step {
	return StepOf(w.fn, line, what)
}

// calls applies a sequence of calls to st.
func (w *walker) calls(cs []cscan.Call, st State) State {
	for _, c := range cs {
		st = w.call(c, st)
	}
	return st
}

func (w *walker) call(c cscan.Call, st State) State {
	if st.Dead {
		return st
	}
	m := w.r.m
	here := w.step(c.Line, CallText(c))
	switch a := m.Classify(c); a.Op {
	case lockmodel.Take:
		w.visit(Visit{Call: c, State: st, Reach: w.lockCallReach(c, here)})
		st = st.Clone()
		st.acquire(Held{Kind: a.Kind, Key: a.Key, Must: true, At: here})
		return st
	case lockmodel.Drop:
		w.visit(Visit{Call: c, State: st, Reach: w.lockCallReach(c, here)})
		st = st.Clone()
		if _, ok := st.Release(a.Kind, a.Key); !ok && w.newDrop(a.Kind, a.Key) {
			w.Drops = append(w.Drops, Effect{Kind: a.Kind, Key: a.Key, Steps: []report.Step{here}})
		}
		if a.EndsBH {
			if _, ok := st.Release("bh", ""); !ok && w.newDrop("bh", "") {
				w.Drops = append(w.Drops, Effect{Kind: "bh", Steps: []report.Step{here}, Soft: true})
			}
		}
		return st
	case lockmodel.Guard:
		w.visit(Visit{Call: c, State: st, Reach: w.lockCallReach(c, here)})
		if a.Kind != "" {
			st = st.Clone()
			h := Held{Kind: a.Kind, Key: a.Key, Must: true, At: here}
			st.acquire(h)
			if n := len(w.blockGuards); n > 0 {
				w.blockGuards[n-1] = append(w.blockGuards[n-1], h)
			}
		}
		return st
	}
	// The early exits before c guard it as an if would (exitguard.go):
	// for whether a reach is conditional; visitors see the call as
	// written.
	orig := c
	c = w.r.withExitGuards(w.fn, c)
	if why, vc, ok := w.r.reachesAt(w.fn, c); ok && w.r.masked(w.fn, c, c.Name) {
		// A primitive its region keeps from sleeping: a leaf.
		w.visit(Visit{Call: orig, State: st})
		return st
	} else if ok {
		var p *Reach
		if cond, ok := w.r.primCond(w.fn, c, vc, w.r.condGuarded(w.fn, c.Guards)); ok {
			p = &Reach{Steps: []report.Step{here}, Prim: c.Name, Why: why, Cond: cond}
		}
		// The lock the primitive sleeps with released is no context of
		// its sleep.
		sleeping, _ := w.r.withoutReleased(c, st, here)
		w.visit(Visit{Call: orig, State: sleeping, Reach: p})
		return st
	}
	if p := w.r.contextArgReach(w.fn, c, st, here); p != nil {
		w.visit(Visit{Call: orig, State: st, Reach: p})
		return st
	}
	if ar := w.r.primArgReach(w.fn, c); ar != nil {
		var ars []ArgReach
		if !w.r.primArgGuarded(c) {
			ars = append(ars, *ar)
		}
		w.visit(Visit{Call: orig, State: st, ArgReaches: ars})
		return st
	}
	cs := w.r.calleeSummary(c, w.fn)
	if cs == nil {
		w.visit(Visit{Call: orig, State: st})
		return st
	}
	callStep := w.step(c.Line, "calls "+c.Name+"()")
	var proof *Reach
	for _, cr := range []*Reach{cs.Reach, cs.Alt} {
		if cr == nil || proof != nil || w.r.masked(w.fn, c, cr.Prim) {
			continue
		}
		if cond, ok := w.r.callCond(w.fn, c, cr.Cond, w.r.condGuarded(w.fn, c.Guards)); ok {
			proof = &Reach{Prim: cr.Prim, Why: cr.Why, Weak: cr.Weak, Drops: cr.Drops, Retakes: cr.Retakes,
				Steps: append([]report.Step{callStep}, cr.Steps...), Cond: cond}
		}
	}
	if proof == nil && !m.conditional(orig.Guards) {
		// A callback handed on is called whatever the mask: the early
		// exits do not decide it.
		proof = w.r.callbackArgReach(w.fn, c)
	}
	var pass []ArgReach
	if len(cs.ArgReaches) > 0 {
		var p *Reach
		p, pass = w.r.argReach(w.fn, c, cs)
		if proof == nil {
			proof = p
		}
	}
	w.visit(Visit{Call: orig, State: st, Reach: proof, ArgReaches: pass})
	if len(cs.Drops) == 0 && len(cs.Acquires) == 0 {
		return st
	}
	st = st.Clone()
	for _, d := range w.r.dropsInCaller(cs.Drops, c, w.fn) {
		if !st.ReleaseDrop(d) && w.newDrop(d.Kind, d.Key) {
			w.Drops = append(w.Drops, Effect{Kind: d.Kind, Key: d.Key, Steps: dropSteps(callStep, d.Steps), Soft: d.Soft})
		}
	}
	for _, e := range cs.Acquires {
		st.acquire(Held{Kind: e.Kind, Key: e.Key, Must: true, At: callStep, Via: e.Steps})
	}
	return st
}

// condAcquire returns the contexts a condition's call enters on its true
// (or, negated, false) branch: trylocks and functions that return true
// with a lock held.
func (w *walker) condAcquire(cond string, cc []cscan.Call) (onTrue, onFalse []Held) {
	for _, c := range cc {
		var hs []Held
		a := w.r.m.Classify(c)
		if a.Op == lockmodel.TryTake {
			hs = append(hs, Held{Kind: a.Kind, Key: a.Key, Must: true, At: w.step(c.Line, CallText(c))})
		} else if a.Op == lockmodel.Take {
			continue
		} else if cs := w.r.calleeSummary(c, w.fn); cs != nil && len(cs.CondAcquires) > 0 {
			at := func(e Effect) Held {
				return Held{Kind: e.Kind, Key: e.Key, Must: true, At: w.step(c.Line, "calls "+c.Name+"()"), Via: e.Steps}
			}
			if t, f, ok := condHeldOn(cond, c, cs.CondAcquires, at); ok {
				onTrue, onFalse = append(onTrue, t...), append(onFalse, f...)
				continue
			}
			for _, e := range cs.CondAcquires {
				if when, _ := e.Masks(); when&summary.RetPos != 0 {
					hs = append(hs, at(e))
				}
			}
		}
		if len(hs) == 0 {
			continue
		}
		// Only simple conditions: "f(x)", "!f(x)", "likely(f(x))", or a
		// conjunct of an && chain.
		if negated(cond, c.Name) {
			if !strings.Contains(cond, "||") && !strings.Contains(cond, "&&") {
				onFalse = append(onFalse, hs...)
			}
		} else if !strings.Contains(cond, "||") {
			onTrue = append(onTrue, hs...)
		}
	}
	return onTrue, onFalse
}

func withHeld(st State, hs []Held) State {
	if st.Dead || len(hs) == 0 {
		return st
	}
	st = st.Clone()
	for _, h := range hs {
		st.acquire(h)
	}
	return st
}

func (w *walker) stmt(s cscan.Stmt, st State) State {
	switch s := s.(type) {
	case nil:
		return st
	case *cscan.Block:
		w.blockGuards = append(w.blockGuards, nil)
		for _, x := range s.Stmts {
			st = w.stmt(x, st)
		}
		gs := w.blockGuards[len(w.blockGuards)-1]
		w.blockGuards = w.blockGuards[:len(w.blockGuards)-1]
		if !st.Dead && len(gs) > 0 {
			st = st.Clone()
			for _, h := range gs {
				st.Release(h.Kind, h.Key)
			}
		}
		return st
	case *cscan.ExprStmt:
		st = w.calls(s.Calls, st)
		if v, rhs, ok := assignment(s.Text); ok {
			st = w.assign(st, v, rhs, s.Calls)
		}
		return st
	case *cscan.IfStmt:
		st = w.calls(s.CondCalls, st)
		if st.Dead {
			return st
		}
		onTrue, onFalse := w.condAcquire(s.Cond, s.CondCalls)
		thenIn, elseIn := narrowBranches(s.Cond, withHeld(st, onTrue), withHeld(st, onFalse))
		thenSt := w.stmt(s.Then, thenIn)
		elseSt := w.stmt(s.Else, elseIn)
		return mergeStates(thenSt, elseSt)
	case *cscan.LoopStmt:
		return w.loop(s, st)
	case *cscan.SwitchStmt:
		return w.switchStmt(s, st)
	case *cscan.CaseStmt:
		return st
	case *cscan.ReturnStmt:
		st = w.calls(s.Calls, st)
		if e := strings.TrimSpace(s.Expr); len(s.Calls) > 0 && !cscan.IsIdent(e) {
			// "return f(x);": the value is f's, held on as f's is.
			st = w.assign(st, e, e, s.Calls)
		}
		if !st.Dead {
			w.rets = append(w.rets, st)
			w.retExprs = append(w.retExprs, s.Expr)
		}
		return deadState
	case *cscan.GotoStmt:
		if !st.Dead {
			if p, ok := w.pending[s.Label]; ok {
				w.pending[s.Label] = mergeStates(p, st)
			} else {
				w.pending[s.Label] = st.Clone()
			}
		}
		return deadState
	case *cscan.LabelStmt:
		if p, ok := w.pending[s.Label]; ok {
			delete(w.pending, s.Label)
			return mergeStates(st, p)
		}
		return st
	case *cscan.BreakStmt, *cscan.ContinueStmt:
		if n := len(w.breaks); n > 0 && !st.Dead {
			*w.breaks[n-1] = mergeStates(*w.breaks[n-1], st)
		}
		return deadState
	case *cscan.ScopedGuardStmt:
		w.visit(Visit{Call: s.Call, State: st, Reach: w.lockCallReach(s.Call, w.step(s.Line, CallText(s.Call)))})
		a := w.r.m.Classify(s.Call)
		if a.Kind == "" {
			return w.stmt(s.Body, st)
		}
		kind, key := a.Kind, a.Key
		h := Held{Kind: kind, Key: key, Must: true, At: w.step(s.Line, CallText(s.Call))}
		out := w.stmt(s.Body, withHeld(st, []Held{h}))
		if !out.Dead {
			out = out.Clone()
			out.Release(kind, key)
		}
		return out
	}
	return st
}

// loop walks a loop: its body, left by break or by its condition (a do
// loop's after the body; a forever loop only by break).
func (w *walker) loop(s *cscan.LoopStmt, st State) State {
	st = w.calls(s.CondCalls, st)
	if st.Dead {
		return st
	}
	var brk State = deadState
	w.breaks = append(w.breaks, &brk)
	body := w.stmt(s.Body, st)
	w.breaks = w.breaks[:len(w.breaks)-1]
	out := mergeStates(body, brk)
	if s.Kind == "do" {
		out = w.calls(s.CondCalls, out)
		return out
	}
	if isForever(s) {
		return brk
	}
	return mergeStates(st, out)
}

// switchStmt walks a switch: each case label is entered with the state
// before the switch, and with no default the switch may be skipped.
func (w *walker) switchStmt(s *cscan.SwitchStmt, st State) State {
	st = w.calls(s.CondCalls, st)
	if st.Dead {
		return st
	}
	var brk State = deadState
	w.breaks = append(w.breaks, &brk)
	entry := st
	cur := deadState
	hasDefault := false
	if b, ok := s.Body.(*cscan.Block); ok {
		for _, x := range b.Stmts {
			if c, ok := x.(*cscan.CaseStmt); ok {
				if c.Label == "default" {
					hasDefault = true
				}
				cur = mergeStates(cur, entry)
				continue
			}
			cur = w.stmt(x, cur)
		}
	} else {
		cur = w.stmt(s.Body, entry)
	}
	w.breaks = w.breaks[:len(w.breaks)-1]
	out := mergeStates(cur, brk)
	if !hasDefault {
		out = mergeStates(out, entry)
	}
	return out
}

// Walk follows fn's statement tree path-sensitively from an empty state,
// calling visit for every call with the contexts held just before it, and
// returns the state at the end of the body.
func Walk(r *Resolver, fn *cscan.Func, visit func(Visit)) State {
	if fn == nil {
		return State{}
	}
	return newWalker(r, fn, visit).run(State{})
}

// WalkFrom is Walk starting from the contexts entry (for instance the
// implicit contexts of a callback, see Resolver.Implicit).
func WalkFrom(r *Resolver, fn *cscan.Func, entry State, visit func(Visit)) State {
	if fn == nil {
		return State{}
	}
	return newWalker(r, fn, visit).run(entry)
}

// lockCallReach returns the proof that lock call c itself reaches the
// target, nil when it does not: a guard whose lock sleeps (guard(mutex)),
// or a lock call that may sleep before it takes or after it drops its lock
// (the target's table lists it: lock_sock_fast() waits for the socket's
// owner on its slow path), judged in the state before the call.
func (w *walker) lockCallReach(c cscan.Call, here report.Step) *Reach {
	why, vc, ok := w.r.reachesAt(w.fn, c)
	if !ok {
		return nil
	}
	c = w.r.withExitGuards(w.fn, c)
	cond, ok := w.r.primCond(w.fn, c, vc, w.r.m.conditional(c.Guards))
	if !ok {
		return nil
	}
	return &Reach{Steps: []report.Step{here}, Prim: c.Name, Why: why, Cond: cond}
}

// isGuardCall reports whether c declares a guard (guard(class)(...),
// scoped_guard(class, ...)).
func isGuardCall(c cscan.Call) bool { return c.Name == "guard" || c.Name == "scoped_guard" }

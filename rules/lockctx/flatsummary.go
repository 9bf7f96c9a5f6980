package lockctx

import (
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// flatSummary summarises fn from its call list: the guards of each call
// say which acquires and releases are in scope (a release inside an
// error-path if does not end a region for the code after the if).
// acquires reports whether fn enters a context anywhere (a primitive, or
// a callee returning with one held).
func (r *Resolver) flatSummary(fn *cscan.Func) (s *Summary, acquires bool) {
	f := &flatBuilder{r: r, fn: fn, s: &Summary{}}
	for _, ev := range flatEvents(fn) {
		if ev.call == nil {
			st := f.stateAt(ev.pos, ev.guards)
			f.retStates = append(f.retStates, st)
			f.retFalse = append(f.retFalse, ev.ret != nil && falseish(ev.ret.Expr))
			continue
		}
		f.call(ev)
	}
	f.chooseReach()
	f.addDrops()
	f.addAcquires()
	f.addRetakes()
	return f.s, f.acquires
}

// flatBuilder holds what flatSummary has found so far in fn's events.
type flatBuilder struct {
	r  *Resolver
	fn *cscan.Func
	s  *Summary
	// acts are the entries to and exits from contexts in event order,
	// reaches the chains found to the target.
	acts    []act
	reaches []*Reach
	// retStates are the contexts held at each return (and at the end),
	// retFalse whether that return returns a false value.
	retStates []State
	retFalse  []bool
	// acquires is set when a call enters a context (or may, for a callee
	// that returns holding one on some of its values).
	acquires bool
	// returnOnly is loopsLeftByReturn's answer, breakHeld
	// breakHeldLoops' (read when first needed).
	returnOnly map[int]bool
	breakHeld  map[int]int
}

// flatEvents returns fn's calls (at most maxSummaryCalls) and returns in
// source order, a call before a return on its line, with the end of the
// function when no return is unguarded.
func flatEvents(fn *cscan.Func) []event {
	calls := fn.Calls
	if len(calls) > maxSummaryCalls {
		calls = calls[:maxSummaryCalls]
	}
	evs := make([]event, 0, len(calls)+len(fn.Returns)+1)
	for i := range calls {
		evs = append(evs, event{line: calls[i].Line, call: &calls[i], guards: calls[i].Guards})
	}
	for i := range fn.Returns {
		evs = append(evs, event{line: fn.Returns[i].Line, ret: &fn.Returns[i], guards: fn.Returns[i].Guards})
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].line != evs[j].line {
			return evs[i].line < evs[j].line
		}
		return evs[i].call != nil && evs[j].call == nil
	})
	unguardedReturn := false
	for _, r := range fn.Returns {
		if len(r.Guards) == 0 {
			unguardedReturn = true
		}
	}
	if !unguardedReturn {
		evs = append(evs, event{line: fn.End})
	}
	for i := range evs {
		evs[i].pos = i
	}
	return evs
}

// heldAt returns the contexts held before event pos under guards g, and
// the caller contexts released with nothing of fn's own held.
func (f *flatBuilder) heldAt(pos int, g []cscan.Guard) (State, []Effect) {
	return f.held(pos, g, true)
}

// stateAt is heldAt without the releases (their chains cost allocations
// that most callers drop).
func (f *flatBuilder) stateAt(pos int, g []cscan.Guard) State {
	st, _ := f.held(pos, g, false)
	return st
}

// held is heldAt, with the releases only when wantDrops is set.
func (f *flatBuilder) held(pos int, g []cscan.Guard, wantDrops bool) (State, []Effect) {
	st := State{}
	var drops []Effect
	if len(f.acts) == 0 {
		return st, nil
	}
	for k := range f.acts {
		a := &f.acts[k]
		if a.pos >= pos {
			break
		}
		if !a.applies(g) {
			continue
		}
		if a.acquire {
			st.acquire(Held{Kind: a.Kind, Key: a.Key, Must: true, At: a.at, Via: a.via})
		} else if !a.release(&st) && !a.soft && wantDrops {
			drops = append(drops, Effect{Kind: a.Kind, Key: a.Key, Steps: a.steps()})
		}
	}
	return st, drops
}

// call handles one call event: a lock primitive, the target, a parameter
// reach, or a callee whose summary it applies.
func (f *flatBuilder) call(ev event) {
	r, fn, s := f.r, f.fn, f.s
	c := *ev.call
	here := StepOf(fn, c.Line, CallText(c))
	isLock := f.lockCall(ev, c, here)
	// From here c's guards decide whether a reach is conditional, with
	// the early exits before it (exitguard.go); ev.guards, the constructs
	// around it, decide what is held.
	c = r.withExitGuards(fn, c)
	// A lock call may itself sleep before it takes the lock
	// (lock_sock_fast(): might_sleep(), __lock_sock() on its slow path):
	// the target's table says so, and the reach is recorded like any
	// primitive's.
	why, vc, reaches := r.reachesAt(fn, c)
	if reaches && r.masked(fn, c, c.Name) {
		// Inside its region the primitive cannot sleep, and its own
		// definition (copy_from_user()'s might_fault()) is no callee.
		return
	}
	if isLock && !isGuardCall(c) && !reaches {
		return
	}
	if reaches {
		cond, ok := r.primCond(fn, c, vc, r.condGuarded(fn, c.Guards))
		if !ok {
			f.guardedReach(ev, c, Reach{Steps: []report.Step{here}, Prim: c.Name, Why: why})
			return
		}
		st, drops := f.heldAt(ev.pos, ev.guards)
		st, drop := r.withoutReleased(c, st, here)
		if drop != nil {
			drops = append(drops, *drop)
		}
		if st.Empty() {
			f.reaches = append(f.reaches, &Reach{Steps: []report.Step{here}, Prim: c.Name, Why: why, Drops: drops, Cond: cond})
		}
		return
	}
	if isLock {
		return
	}
	if ar := r.primArgReach(fn, c); ar != nil && !r.primArgGuarded(c) {
		// The caller contexts released before the primitive go with the
		// reach, as with any reach (xarray's __xas_nomem() unlocks the
		// caller's xa_lock before it allocates with a blocking mask).
		if st, drops := f.heldAt(ev.pos, ev.guards); st.Empty() && len(s.ArgReaches) < 4 {
			ar.Reach.Drops = drops
			s.ArgReaches = append(s.ArgReaches, *ar)
		}
		return
	}
	cs := r.calleeSummary(c, fn)
	if cs == nil {
		return
	}
	f.acquires = f.acquires || len(cs.Acquires)+len(cs.CondAcquires) > 0
	f.calleeReaches(ev, c, cs)
	callStep := StepOf(fn, c.Line, "calls "+c.Name+"()")
	for _, d := range cs.Drops {
		f.acts = append(f.acts, act{pos: ev.pos, Kind: d.Kind, Key: d.Key, scope: ev.guards, at: callStep, via: dropEnd(d.Steps), soft: d.Soft,
			callee: true, written: dropWrittenIn(d)})
	}
	for _, e := range cs.Acquires {
		f.acts = append(f.acts, act{pos: ev.pos, acquire: true, Kind: e.Kind, Key: e.Key, scope: ev.guards, at: callStep, via: e.Steps})
	}
	if len(cs.CondAcquires) > 0 {
		if g, neg := condGuard(fn, c); g != nil {
			for _, e := range cs.CondAcquires {
				a := act{pos: ev.pos, acquire: true, Kind: e.Kind, Key: e.Key, scope: ev.guards, at: callStep, via: e.Steps}
				onTrue, onFalse := condSides(g.Cond, c, e, neg)
				switch {
				case onTrue:
					a.within = g
				case onFalse:
					a.notIn = g
				default:
					continue
				}
				f.acts = append(f.acts, a)
			}
		}
	}
}

// lockCall records the context a lock primitive, guard or trylock call
// enters or leaves; it reports whether c is one.
func (f *flatBuilder) lockCall(ev event, c cscan.Call, here report.Step) bool {
	a := f.r.m.Classify(c)
	base := act{pos: ev.pos, acquire: true, Kind: a.Kind, Key: a.Key, scope: c.Guards, at: here}
	switch a.Op {
	case lockmodel.Take:
		f.acquires = true
		f.acts = append(f.acts, base)
		if both := f.bothBranches(base); both != nil {
			f.acts = append(f.acts, *both)
		}
		if after := f.heldAfterLoop(base); after != nil {
			f.acts = append(f.acts, *after)
		}
	case lockmodel.Drop:
		base.acquire = false
		f.dropBothBranches(base)
		f.acts = append(f.acts, base)
		if a.EndsBH {
			f.acts = append(f.acts, act{pos: ev.pos, Kind: "bh", scope: c.Guards, at: here, soft: true})
		}
	case lockmodel.Guard:
		if a.Kind != "" {
			f.acts = append(f.acts, base)
		}
	case lockmodel.ScopedGuard:
		if a.Kind != "" {
			base.within = &cscan.Guard{Kind: "scoped_guard", Cond: strings.Join(c.Args, ", "), Line: c.Line}
			f.acts = append(f.acts, base)
		}
	case lockmodel.TryTake:
		f.acquires = true
		if g, neg := condGuard(f.fn, c); g != nil {
			if neg {
				base.notIn = g
			} else {
				base.within = g
			}
			f.acts = append(f.acts, base)
		}
	default:
		return false
	}
	return true
}

// calleeReaches adds the chains to the target through callee summary cs
// of call c: by an argument's value, by a callback passed in an argument,
// or the callee's own reach, each with nothing held at the call.
func (f *flatBuilder) calleeReaches(ev event, c cscan.Call, cs *Summary) {
	r, fn, s := f.r, f.fn, f.s
	if len(cs.ArgReaches) > 0 {
		if st := f.stateAt(ev.pos, ev.guards); st.Empty() {
			p, pass := r.argReach(fn, c, cs)
			if p != nil {
				f.reaches = append(f.reaches, p)
			}
			for _, a := range pass {
				if len(s.ArgReaches) < 4 {
					s.ArgReaches = append(s.ArgReaches, a)
				}
			}
		}
	}
	callStep := StepOf(fn, c.Line, "calls "+c.Name+"()")
	if cs.Reach == nil && !r.m.conditional(ev.guards) {
		if p := r.callbackArgReach(fn, c); p != nil {
			if st := f.stateAt(ev.pos, ev.guards); st.Empty() {
				f.reaches = append(f.reaches, p)
			}
		}
	}
	for _, cr := range []*Reach{cs.Reach, cs.Alt} {
		if cr != nil {
			f.calleeReach(ev, c, cr, callStep)
		}
	}
}

// calleeReach adds the chain through reach cr of the callee of call c (its
// summary's Reach or Alt), with nothing held at the call.
func (f *flatBuilder) calleeReach(ev event, c cscan.Call, cr *Reach, callStep report.Step) {
	r, fn := f.r, f.fn
	if !mayChoose(f.leading(), cr.Weak) || r.masked(fn, c, cr.Prim) {
		return
	}
	if cond, ok := r.callCond(fn, c, cr.Cond, r.condGuarded(fn, c.Guards)); ok {
		st, drops := f.heldAt(ev.pos, ev.guards)
		for _, d := range cr.Drops {
			if d.Kind != "rcu" {
				st.ReleaseDrop(d)
			}
		}
		if st.Empty() {
			p := &Reach{Prim: cr.Prim, Why: cr.Why, Weak: cr.Weak,
				Steps:   append([]report.Step{callStep}, cr.Steps...),
				Drops:   append(drops, cr.Drops...),
				Retakes: cr.Retakes, Cond: cond}
			f.reaches = append(f.reaches, p)
		}
	} else if cr.Cond == nil && !cr.Weak {
		f.guardedReach(ev, c, Reach{Prim: cr.Prim, Why: cr.Why,
			Steps: append([]report.Step{callStep}, cr.Steps...)})
	}
}

// guardedReach records reach p of call c, which c's guards make
// conditional, as a reach on fn's parameter when the guards only test
// that parameter for allowing the target (Resolver.guardedReach), with
// nothing of fn's own held at c.
func (f *flatBuilder) guardedReach(ev event, c cscan.Call, p Reach) {
	if len(f.s.ArgReaches) >= 4 {
		return
	}
	ar := f.r.guardedReach(f.fn, c, p)
	if ar == nil {
		return
	}
	if st := f.stateAt(ev.pos, ev.guards); st.Empty() {
		f.s.ArgReaches = append(f.s.ArgReaches, *ar)
	}
}

// chooseReach picks the summary's reach: the first certain chain, else
// the first uncertain one; among those, one taken whatever the
// parameters first (reachRank).
func (f *flatBuilder) chooseReach() {
	// A chain to a primitive a region masks (a user access) ranks after
	// every other; one some context lets pass (an I2C transfer at
	// restart) after those as sure: callers there see the other sleeps.
	rank := func(p *Reach) int {
		if f.r.maskable(p.Prim) {
			return 2*reachRank(p) + 64
		}
		if f.r.passedInContext(p.Prim) {
			return 2*reachRank(p) + 1
		}
		return 2 * reachRank(p)
	}
	for _, p := range f.reaches {
		if f.s.Reach == nil || rank(p) < rank(f.s.Reach) {
			f.s.Reach = p
		}
	}
	if f.s.Reach == nil || f.s.Reach.Cond == nil {
		return
	}
	// A chain for other values of the parameters (Summary.Alt).
	for _, p := range f.reaches {
		if p.Cond != nil && !sameParamCond(p.Cond, f.s.Reach.Cond) && (f.s.Alt == nil || rank(p) < rank(f.s.Alt)) {
			f.s.Alt = p
		}
	}
}

// sameParamCond reports whether a and b ask the same of the same
// parameter (summary.SameCond).
func sameParamCond(a, b *ParamCond) bool { return summary.SameCond(a, b) }

// addDrops adds the releases made with nothing held locally and outside
// any guard (a release under a condition is no drop of every path) but
// forever loops left only by return, whose body always runs before
// (a "while (true)" that drops the caller's lock, then takes and returns
// another: fs-writeback's locked_inode_to_wb_and_lock_list()).
func (f *flatBuilder) addDrops() {
	// The releases of one call (a callee's drops) share its position, so
	// the state before them is computed once per call.
	last, lastPos := State{}, -1
	for k := range f.acts {
		a := &f.acts[k]
		if a.acquire || !foreverOnly(a.scope, f.loopsLeftByReturn) {
			continue
		}
		if a.pos != lastPos {
			last, lastPos = f.stateAt(a.pos, a.scope), a.pos
		}
		st := last.Clone()
		if !a.release(&st) {
			f.s.Drops = append(f.s.Drops, Effect{Kind: a.Kind, Key: a.Key, Steps: a.steps(), Soft: a.soft})
		}
	}
}

// heldIn reports whether st holds h's context.
func heldIn(st State, h Held) bool {
	has := false
	for _, x := range st.Held {
		if x.Kind == h.Kind && x.Key == h.Key {
			has = true
		}
	}
	return has
}

// addAcquires adds the contexts held at every return, or exactly at the
// true ones.
func (f *flatBuilder) addAcquires() {
	s, retStates, retFalse := f.s, f.retStates, f.retFalse
	if len(retStates) == 0 {
		return
	}
	for _, h := range retStates[0].Held {
		inAll, inTrue, inFalse := true, true, false
		for i, st := range retStates {
			has := heldIn(st, h)
			if !has {
				inAll = false
			}
			if retFalse[i] && has {
				inFalse = true
			}
			if !retFalse[i] && !has {
				inTrue = false
			}
		}
		e := Effect{Kind: h.Kind, Key: h.Key, Steps: append([]report.Step{h.At}, h.Via...)}
		switch {
		case inAll:
			s.Acquires = append(s.Acquires, e)
		case inTrue && !inFalse:
			s.CondAcquires = append(s.CondAcquires, e)
		}
	}
	for _, h := range retStates[len(retStates)-1].Held {
		if retFalse[len(retStates)-1] {
			continue
		}
		dup := false
		for _, e := range append(s.Acquires, s.CondAcquires...) {
			if e.Kind == h.Kind && e.Key == h.Key {
				dup = true
			}
		}
		if dup {
			continue
		}
		// held at the true returns only (first return was false).
		ok := true
		for i, st := range retStates {
			if heldIn(st, h) == retFalse[i] {
				ok = false
			}
		}
		if ok {
			s.CondAcquires = append(s.CondAcquires, Effect{Kind: h.Kind, Key: h.Key, Steps: append([]report.Step{h.At}, h.Via...)})
		}
	}
}

// addRetakes notes, on the reach, the contexts it drops that the function
// holds again at return.
func (f *flatBuilder) addRetakes() {
	s := f.s
	if s.Reach == nil {
		return
	}
	for _, e := range s.Acquires {
		for _, d := range s.Reach.Drops {
			if e.Kind == d.Kind {
				s.Reach.Retakes = append(s.Reach.Retakes, e)
			}
		}
	}
}

// act is one entry to or exit from an atomic context in a function's
// flat call list.
type act struct {
	pos     int
	acquire bool
	Kind    string
	Key     string
	scope   []cscan.Guard
	within  *cscan.Guard // held only inside this if (trylock success)
	notIn   *cscan.Guard // held except inside this if (negated trylock)
	// at is the call in the function summarised, via the callee's chain
	// on from it (shared with the callee's summary, never appended to);
	// full is both, made when first asked for (steps).
	at        report.Step
	via, full []report.Step
	// soft releases end a context only when one is held (the bh side of
	// spin_unlock_bh(), which also ends a local_bh_disable()).
	soft bool
	// callee marks a callee's drop (a release primitive of the function
	// otherwise); written, one written in the callee itself
	// (dropWrittenIn).
	callee, written bool
	// both marks an acquire made after an if whose branches both take
	// the context (bothBranches).
	both bool
}

// release applies release a to st (a callee's drop as ReleaseDrop does)
// and reports whether it stops at st (see ReleaseDrop).
func (a *act) release(st *State) bool {
	if !a.callee {
		_, ok := st.Release(a.Kind, a.Key)
		return ok
	}
	return st.releaseCallee(a.Kind, a.Key, a.written)
}

// steps returns the chain of a: its call, then the callee's chain.
func (a *act) steps() []report.Step {
	if a.full == nil {
		a.full = append([]report.Step{a.at}, a.via...)
	}
	return a.full
}

// mayChoose reports whether a reach found after reaches could still be
// the summary's (the first certain chain, else the first uncertain one):
// a chain is not built where it cannot be.
func mayChoose(reaches []*Reach, weak bool) bool {
	for _, p := range reaches {
		if p.Cond == nil && (!p.Weak || weak) {
			return false
		}
	}
	return true
}

// CallText renders a call as "name(arg, arg)".
func CallText(c cscan.Call) string {
	return c.Name + "(" + strings.Join(c.Args, ", ") + ")"
}

// StepOf returns the chain step at line of fn.
func StepOf(fn *cscan.Func, line int, what string) report.Step {
	return report.Step{Func: fn.Name, File: fn.File, Line: line, What: what}
}

// event is a call, a return or the end of a function in source order.
type event struct {
	line   int
	call   *cscan.Call
	ret    *cscan.Return
	guards []cscan.Guard
	pos    int
}

func falseish(expr string) bool {
	e := strings.TrimSpace(expr)
	switch e {
	case "0", "false", "NULL", "(0)":
		return true
	}
	return strings.HasPrefix(e, "-") || strings.HasPrefix(e, "ERR_PTR(")
}

package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// effect is a change a function makes to its caller's atomic state.
type effect struct {
	kind, key string
	// steps lead from the function's call down to the primitive
	// (spin_lock_bh() inside lock_wqueue()).
	steps []report.Step
}

// sleepProof says why a function may sleep: the chain from the call in
// the function down to the sleeping primitive.
type sleepProof struct {
	steps []report.Step
	prim  string
	why   string
	// drops are caller contexts released before the sleeping point
	// (unbalanced unlocks such as rcu_read_unlock() in a callee).
	drops []effect
	// retakes are contexts re-entered after such a drop.
	retakes []effect
}

// summary is the klint-style summary of one function: whether it may
// sleep (with proof) and how it changes its caller's atomic state.
type summary struct {
	sleep *sleepProof
	// acquires are contexts held at every return; condAcquires those held
	// exactly when the function returns a true value (lock_wqueue()).
	acquires, condAcquires []effect
	// drops are caller contexts released by the function.
	drops []effect
}

// resolver finds callee definitions and computes summaries over one view
// (the post-patch or the pre-patch tree, and the patch's functions).
type resolver struct {
	m     *sleepModel
	ix    *index.Index
	patch map[string][]*cscan.Func
	depth int
	memo  map[string]*summary
	// busy breaks recursion cycles.
	busy map[*cscan.Func]bool
	// unresolved counts callees not found (patch-only mode).
	unresolved map[string]bool
}

func newResolver(m *sleepModel, ix *index.Index, patch map[string][]*cscan.Func, depth int) *resolver {
	return &resolver{m: m, ix: ix, patch: patch, depth: depth, memo: map[string]*summary{},
		busy: map[*cscan.Func]bool{}, unresolved: map[string]bool{}}
}

// maxSummaryCalls bounds the calls one summary looks at.
const maxSummaryCalls = 4000

// lookup returns the definition of name a call from file fromFile reaches:
// the patch's version first, then the tree's (same file, then headers and
// non-static definitions). Several non-static candidates (per-arch
// variants) are all returned.
func (r *resolver) lookup(name, fromFile string) []*cscan.Func {
	if fns := r.patch[name]; len(fns) > 0 {
		return pickDefs(fns, fromFile)
	}
	if r.ix == nil {
		return nil
	}
	return pickDefs(r.ix.Funcs(name), fromFile)
}

func pickDefs(fns []*cscan.Func, fromFile string) []*cscan.Func {
	var same, global []*cscan.Func
	for _, fn := range fns {
		switch {
		case fn.File == fromFile:
			same = append(same, fn)
		case !fn.Static || strings.HasSuffix(fn.File, ".h"):
			global = append(global, fn)
		}
	}
	if len(same) > 0 {
		return same[:1]
	}
	if len(global) > 8 {
		global = global[:8]
	}
	return global
}

// calleeSummary returns the summary of the function a call reaches, with
// depth levels of callees below it; nil when unknown.
func (r *resolver) calleeSummary(name, fromFile string, depth int) *summary {
	if depth <= 0 || strings.ContainsAny(name, ">.") {
		return nil
	}
	defs := r.lookup(name, fromFile)
	if len(defs) == 0 {
		if !isUpperName(name) {
			r.unresolved[name] = true
		}
		return nil
	}
	var first *summary
	allSleep := true
	for _, fn := range defs {
		s := r.summaryOf(fn, depth)
		if first == nil {
			first = s
		}
		if s.sleep == nil {
			allSleep = false
		}
	}
	if !allSleep && first.sleep != nil {
		c := *first
		c.sleep = nil
		return &c
	}
	return first
}

// summaryOf computes (memoised) the summary of fn looking depth-1 levels
// into callees.
func (r *resolver) summaryOf(fn *cscan.Func, depth int) *summary {
	key := fmt.Sprintf("%p@%d", fn, depth)
	if s, ok := r.memo[key]; ok {
		return s
	}
	if r.busy[fn] {
		return &summary{}
	}
	r.busy[fn] = true
	s := r.flatSummary(fn, depth)
	if len(s.acquires)+len(s.condAcquires)+len(s.drops) > 0 || s.sleep != nil && r.releases(fn, depth) {
		r.refineEffects(fn, s, depth)
	}
	delete(r.busy, fn)
	r.memo[key] = s
	return s
}

// act is one entry to or exit from an atomic context in a function's
// flat call list.
type act struct {
	pos     int
	acquire bool
	kind    string
	key     string
	scope   []cscan.Guard
	within  *cscan.Guard // held only inside this if (trylock success)
	notIn   *cscan.Guard // held except inside this if (negated trylock)
	steps   []report.Step
}

func sameGuard(a, b cscan.Guard) bool {
	return a.Kind == b.Kind && a.Line == b.Line && a.Cond == b.Cond
}

func guardPrefix(p, g []cscan.Guard) bool {
	if len(p) > len(g) {
		return false
	}
	for i := range p {
		if !sameGuard(p[i], g[i]) {
			return false
		}
	}
	return true
}

func hasGuard(gs []cscan.Guard, g *cscan.Guard) bool {
	for _, x := range gs {
		if sameGuard(x, *g) {
			return true
		}
	}
	return false
}

func (a *act) applies(g []cscan.Guard) bool {
	if !guardPrefix(a.scope, g) {
		return false
	}
	if a.within != nil && !hasGuard(g, a.within) {
		return false
	}
	if a.notIn != nil && hasGuard(g, a.notIn) {
		return false
	}
	return true
}

// condGuard finds the if whose condition holds call c (the guard of the
// statements it controls), and whether the call is negated there.
func condGuard(fn *cscan.Func, c cscan.Call) (*cscan.Guard, bool) {
	for i := range fn.Calls {
		for j := range fn.Calls[i].Guards {
			g := &fn.Calls[i].Guards[j]
			if g.Kind == "if" && g.Line == c.Line && strings.Contains(g.Cond, c.Name+"(") {
				return g, negated(g.Cond, c.Name)
			}
		}
	}
	for i := range fn.Returns {
		for j := range fn.Returns[i].Guards {
			g := &fn.Returns[i].Guards[j]
			if g.Kind == "if" && g.Line == c.Line && strings.Contains(g.Cond, c.Name+"(") {
				return g, negated(g.Cond, c.Name)
			}
		}
	}
	return nil, false
}

// negated reports whether name's call in cond is under a leading '!'
// (directly or through likely()/unlikely()).
func negated(cond, name string) bool {
	i := strings.Index(cond, name+"(")
	if i < 0 {
		return false
	}
	pre := strings.TrimRight(cond[:i], " (")
	pre = strings.TrimSuffix(pre, "likely")
	pre = strings.TrimSuffix(pre, "un")
	pre = strings.TrimRight(pre, " (")
	return strings.HasSuffix(pre, "!")
}

func callText(c cscan.Call) string {
	return c.Name + "(" + strings.Join(c.Args, ", ") + ")"
}

func stepOf(fn *cscan.Func, line int, what string) report.Step {
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

// flatSummary summarises fn from its call list: the guards of each call
// say which acquires and releases are in scope (a release inside an
// error-path if does not end a region for the code after the if).
func (r *resolver) flatSummary(fn *cscan.Func, depth int) *summary {
	s := &summary{}
	calls := fn.Calls
	if len(calls) > maxSummaryCalls {
		calls = calls[:maxSummaryCalls]
	}
	var evs []event
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
	var acts []act
	heldAt := func(pos int, g []cscan.Guard) (ctxState, []effect) {
		st := ctxState{}
		var drops []effect
		for k := range acts {
			a := &acts[k]
			if a.pos >= pos {
				break
			}
			if !a.applies(g) {
				continue
			}
			if a.acquire {
				st.acquire(held{kind: a.kind, key: a.key, must: true, at: a.steps[0], via: a.steps[1:]})
			} else if _, ok := st.release(a.kind, a.key); !ok {
				drops = append(drops, effect{kind: a.kind, key: a.key, steps: a.steps})
			}
		}
		return st, drops
	}
	var sleeps []*sleepProof
	var retStates []ctxState
	var retFalse []bool
	for _, ev := range evs {
		if ev.call == nil {
			st, _ := heldAt(ev.pos, ev.guards)
			retStates = append(retStates, st)
			retFalse = append(retFalse, ev.ret != nil && falseish(ev.ret.Expr))
			continue
		}
		c := *ev.call
		here := stepOf(fn, c.Line, callText(c))
		if p, ok := r.m.acquire[c.Name]; ok {
			acts = append(acts, act{pos: ev.pos, acquire: true, kind: p.kind, key: argKey(c, p.arg), scope: c.Guards, steps: []report.Step{here}})
			continue
		}
		if p, ok := r.m.release[c.Name]; ok {
			acts = append(acts, act{pos: ev.pos, kind: p.kind, key: argKey(c, p.arg), scope: c.Guards, steps: []report.Step{here}})
			continue
		}
		if c.Name == "guard" {
			if kind, key, ok := r.m.guardKind(c); ok {
				acts = append(acts, act{pos: ev.pos, acquire: true, kind: kind, key: key, scope: c.Guards, steps: []report.Step{here}})
			}
			continue
		}
		if c.Name == "scoped_guard" {
			if kind, key, ok := r.m.guardKind(c); ok {
				g := cscan.Guard{Kind: "scoped_guard", Cond: strings.Join(c.Args, ", "), Line: c.Line}
				acts = append(acts, act{pos: ev.pos, acquire: true, kind: kind, key: key, scope: c.Guards, within: &g, steps: []report.Step{here}})
			}
			continue
		}
		if p, ok := r.m.trylock[c.Name]; ok {
			if g, neg := condGuard(fn, c); g != nil {
				a := act{pos: ev.pos, acquire: true, kind: p.kind, key: argKey(c, p.arg), scope: c.Guards, steps: []report.Step{here}}
				if neg {
					a.notIn = g
				} else {
					a.within = g
				}
				acts = append(acts, a)
			}
			continue
		}
		if why, ok := r.m.sleepWhy(c); ok {
			if r.m.conditionalSleep(c.Guards) {
				continue
			}
			st, drops := heldAt(ev.pos, c.Guards)
			if st.empty() {
				sleeps = append(sleeps, &sleepProof{steps: []report.Step{here}, prim: c.Name, why: why, drops: drops})
			}
			continue
		}
		cs := r.calleeSummary(c.Name, fn.File, depth-1)
		if cs == nil {
			continue
		}
		via := func(e effect) []report.Step {
			return append([]report.Step{stepOf(fn, c.Line, "calls "+c.Name+"()")}, e.steps...)
		}
		if cs.sleep != nil && !r.m.conditionalSleep(c.Guards) {
			st, drops := heldAt(ev.pos, c.Guards)
			for _, d := range cs.sleep.drops {
				if d.kind != "rcu" {
					st.release(d.kind, "")
				}
			}
			if st.empty() {
				p := &sleepProof{prim: cs.sleep.prim, why: cs.sleep.why,
					steps:   append([]report.Step{stepOf(fn, c.Line, "calls "+c.Name+"()")}, cs.sleep.steps...),
					drops:   append(drops, cs.sleep.drops...),
					retakes: cs.sleep.retakes}
				sleeps = append(sleeps, p)
			}
		}
		for _, d := range cs.drops {
			acts = append(acts, act{pos: ev.pos, kind: d.kind, scope: c.Guards, steps: via(d)})
		}
		for _, e := range cs.acquires {
			acts = append(acts, act{pos: ev.pos, acquire: true, kind: e.kind, key: e.key, scope: c.Guards, steps: via(e)})
		}
		if len(cs.condAcquires) > 0 {
			if g, neg := condGuard(fn, c); g != nil {
				for _, e := range cs.condAcquires {
					a := act{pos: ev.pos, acquire: true, kind: e.kind, key: e.key, scope: c.Guards, steps: via(e)}
					if neg {
						a.notIn = g
					} else {
						a.within = g
					}
					acts = append(acts, a)
				}
			}
		}
	}
	if len(sleeps) > 0 {
		s.sleep = sleeps[0]
	}
	// Drops: releases with nothing held locally, seen at their own scope.
	for k := range acts {
		a := &acts[k]
		if a.acquire {
			continue
		}
		st, _ := heldAt(a.pos, a.scope)
		if _, ok := st.release(a.kind, a.key); !ok && len(a.scope) == 0 {
			s.drops = append(s.drops, effect{kind: a.kind, key: a.key, steps: a.steps})
		}
	}
	// Acquires: contexts held at every return, or exactly at the true ones.
	if len(retStates) > 0 {
		for _, h := range retStates[0].held {
			inAll, inTrue, inFalse := true, true, false
			for i, st := range retStates {
				has := false
				for _, x := range st.held {
					if x.kind == h.kind && x.key == h.key {
						has = true
					}
				}
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
			e := effect{kind: h.kind, key: h.key, steps: append([]report.Step{h.at}, h.via...)}
			switch {
			case inAll:
				s.acquires = append(s.acquires, e)
			case inTrue && !inFalse:
				s.condAcquires = append(s.condAcquires, e)
			}
		}
		for _, h := range retStates[len(retStates)-1].held {
			if retFalse[len(retStates)-1] {
				continue
			}
			dup := false
			for _, e := range append(s.acquires, s.condAcquires...) {
				if e.kind == h.kind && e.key == h.key {
					dup = true
				}
			}
			if dup {
				continue
			}
			// Held at the true returns only (first return was false).
			ok := true
			for i, st := range retStates {
				has := false
				for _, x := range st.held {
					if x.kind == h.kind && x.key == h.key {
						has = true
					}
				}
				if has == retFalse[i] {
					ok = false
				}
			}
			if ok {
				s.condAcquires = append(s.condAcquires, effect{kind: h.kind, key: h.key, steps: append([]report.Step{h.at}, h.via...)})
			}
		}
	}
	if s.sleep != nil {
		for _, e := range s.acquires {
			for _, d := range s.sleep.drops {
				if e.kind == d.kind {
					s.sleep.retakes = append(s.sleep.retakes, e)
				}
			}
		}
	}
	return s
}

// refineEffects recomputes a summary's effect on the caller (contexts held
// at return, contexts released) path-sensitively from the statement tree:
// the flat call list cannot tell that both branches of an if/else unlock.
// Only functions whose flat summary has an effect get here, a few percent.
func (r *resolver) refineEffects(fn *cscan.Func, s *summary, depth int) {
	full := fn
	if full.Body == nil {
		if r.ix == nil {
			return
		}
		if full = r.ix.Full(fn); full == nil || full.Body == nil {
			return
		}
	}
	// The first sleeping call reached with nothing held locally, and the
	// caller contexts released before it.
	var sleep *sleepProof
	var w *walker
	w = newWalker(r, full, func(v callVisit) {
		if sleep != nil || v.sleep == nil || v.state.dead || !v.state.empty() {
			return
		}
		p := *v.sleep
		p.drops = append(append([]effect(nil), w.drops...), v.sleep.drops...)
		sleep = &p
	})
	w.depth = depth - 1
	end := w.run(ctxState{})
	if s.sleep != nil {
		s.sleep = sleep
	}
	rets, exprs := w.rets, w.retExprs
	if !end.dead {
		rets = append(rets, end)
		exprs = append(exprs, "")
	}
	if len(rets) == 0 {
		s.acquires, s.condAcquires, s.drops = nil, nil, w.drops
		return
	}
	has := func(st ctxState, kind, key string) bool {
		for _, h := range st.held {
			if h.kind == kind && h.key == key && h.must {
				return true
			}
		}
		return false
	}
	var acq, cond []effect
	for _, h := range rets[0].held {
		all, onTrue, onFalse, anyFalse := true, true, false, false
		for i, st := range rets {
			hs := has(st, h.kind, h.key)
			f := falseish(exprs[i])
			all = all && hs
			if f {
				anyFalse = true
				onFalse = onFalse || hs
			} else if !hs {
				onTrue = false
			}
		}
		e := effect{kind: h.kind, key: h.key, steps: append([]report.Step{h.at}, h.via...)}
		switch {
		case all:
			acq = append(acq, e)
		case onTrue && anyFalse && !onFalse:
			cond = append(cond, e)
		}
	}
	// Contexts held only at the true returns, when the first return is a
	// false one.
	for i, st := range rets {
		if falseish(exprs[i]) {
			continue
		}
		for _, h := range st.held {
			dup := false
			for _, e := range append(append([]effect(nil), acq...), cond...) {
				if e.kind == h.kind && e.key == h.key {
					dup = true
				}
			}
			if dup {
				continue
			}
			ok, anyFalse := true, false
			for j, st2 := range rets {
				hs := has(st2, h.kind, h.key)
				if falseish(exprs[j]) {
					anyFalse = true
					ok = ok && !hs
				} else {
					ok = ok && hs
				}
			}
			if ok && anyFalse {
				cond = append(cond, effect{kind: h.kind, key: h.key, steps: append([]report.Step{h.at}, h.via...)})
			}
		}
		break
	}
	s.acquires, s.condAcquires = acq, cond
	s.drops = nil
	for _, d := range w.drops {
		if len(d.steps) > 0 {
			s.drops = append(s.drops, d)
		}
	}
}

// releases reports whether fn leaves an atomic context anywhere (directly
// or through a callee), which the flat summary may misjudge inside
// branches.
func (r *resolver) releases(fn *cscan.Func, depth int) bool {
	for _, c := range fn.Calls {
		if _, ok := r.m.release[c.Name]; ok {
			return true
		}
	}
	for _, c := range fn.Calls {
		if r.m.primitive(c) {
			continue
		}
		if cs := r.calleeSummary(c.Name, fn.File, depth-1); cs != nil && len(cs.drops) > 0 {
			return true
		}
	}
	return false
}

// isUpperName reports a macro-style name (BUG, WARN_ON, READ_ONCE).
func isUpperName(n string) bool {
	return strings.ToUpper(n) == n
}

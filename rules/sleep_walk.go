package rules

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// callVisit is what the walker reports for every call: the call, the
// atomic contexts held just before it, and (for a call that may sleep)
// the proof.
type callVisit struct {
	call  cscan.Call
	state ctxState
	sleep *sleepProof
}

// walker follows one function's statement tree path-sensitively,
// tracking the atomic contexts held.
type walker struct {
	r     *resolver
	fn    *cscan.Func
	visit func(v callVisit)
	// pending goto states per label.
	pending map[string]ctxState
	// breaks and continues of the innermost breakable construct.
	breaks []*ctxState
	// drops are releases of contexts the function did not enter.
	drops []effect
	// rets are the states at each return, retExprs their expressions.
	rets     []ctxState
	retExprs []string
	// depth is the summary depth used for callees.
	depth int
	// blockGuards are guard() acquisitions to release at block end.
	blockGuards [][]held
}

func newWalker(r *resolver, fn *cscan.Func, visit func(callVisit)) *walker {
	return &walker{r: r, fn: fn, visit: visit, pending: map[string]ctxState{}, depth: r.depth}
}

// run walks the whole body from an empty state (or entry) and returns the
// state at the end.
func (w *walker) run(entry ctxState) ctxState {
	if w.fn.Body == nil {
		return entry
	}
	return w.stmt(w.fn.Body, entry)
}

func (w *walker) step(line int, what string) report.Step {
	return stepOf(w.fn, line, what)
}

// calls applies a sequence of calls to st.
func (w *walker) calls(cs []cscan.Call, st ctxState) ctxState {
	for _, c := range cs {
		st = w.call(c, st)
	}
	return st
}

func (w *walker) call(c cscan.Call, st ctxState) ctxState {
	if st.dead {
		return st
	}
	m := w.r.m
	here := w.step(c.Line, callText(c))
	if p, ok := m.acquire[c.Name]; ok {
		w.visit(callVisit{call: c, state: st})
		st = st.clone()
		st.acquire(held{kind: p.kind, key: argKey(c, p.arg), must: true, at: here})
		return st
	}
	if p, ok := m.release[c.Name]; ok {
		w.visit(callVisit{call: c, state: st})
		st = st.clone()
		if _, ok := st.release(p.kind, argKey(c, p.arg)); !ok {
			w.drops = append(w.drops, effect{kind: p.kind, key: argKey(c, p.arg), steps: []report.Step{here}})
		}
		return st
	}
	if c.Name == "guard" {
		w.visit(callVisit{call: c, state: st})
		if kind, key, ok := m.guardKind(c); ok {
			st = st.clone()
			h := held{kind: kind, key: key, must: true, at: here}
			st.acquire(h)
			if n := len(w.blockGuards); n > 0 {
				w.blockGuards[n-1] = append(w.blockGuards[n-1], h)
			}
		}
		return st
	}
	if why, ok := m.sleepWhy(c); ok {
		var p *sleepProof
		if !m.conditionalSleep(c.Guards) {
			p = &sleepProof{steps: []report.Step{here}, prim: c.Name, why: why}
		}
		w.visit(callVisit{call: c, state: st, sleep: p})
		return st
	}
	cs := w.r.calleeSummary(c.Name, w.fn.File, w.depth)
	if cs == nil {
		w.visit(callVisit{call: c, state: st})
		return st
	}
	callStep := w.step(c.Line, "calls "+c.Name+"()")
	var proof *sleepProof
	if cs.sleep != nil && !m.conditionalSleep(c.Guards) {
		proof = &sleepProof{prim: cs.sleep.prim, why: cs.sleep.why, drops: cs.sleep.drops, retakes: cs.sleep.retakes,
			steps: append([]report.Step{callStep}, cs.sleep.steps...)}
	}
	w.visit(callVisit{call: c, state: st, sleep: proof})
	if len(cs.drops) == 0 && len(cs.acquires) == 0 {
		return st
	}
	st = st.clone()
	for _, d := range cs.drops {
		if _, ok := st.release(d.kind, ""); !ok {
			w.drops = append(w.drops, effect{kind: d.kind, key: d.key, steps: append([]report.Step{callStep}, d.steps...)})
		}
	}
	for _, e := range cs.acquires {
		st.acquire(held{kind: e.kind, key: e.key, must: true, at: callStep, via: e.steps})
	}
	return st
}

// condAcquire returns the contexts a condition's call enters on its true
// (or, negated, false) branch: trylocks and functions that return true
// with a lock held.
func (w *walker) condAcquire(cond string, cc []cscan.Call) (onTrue, onFalse []held) {
	for _, c := range cc {
		var hs []held
		if p, ok := w.r.m.trylock[c.Name]; ok {
			hs = append(hs, held{kind: p.kind, key: argKey(c, p.arg), must: true, at: w.step(c.Line, callText(c))})
		} else if _, ok := w.r.m.acquire[c.Name]; ok {
			continue
		} else if cs := w.r.calleeSummary(c.Name, w.fn.File, w.depth); cs != nil {
			for _, e := range cs.condAcquires {
				hs = append(hs, held{kind: e.kind, key: e.key, must: true, at: w.step(c.Line, "calls "+c.Name+"()"), via: e.steps})
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

func withHeld(st ctxState, hs []held) ctxState {
	if st.dead || len(hs) == 0 {
		return st
	}
	st = st.clone()
	for _, h := range hs {
		st.acquire(h)
	}
	return st
}

func (w *walker) stmt(s cscan.Stmt, st ctxState) ctxState {
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
		if !st.dead && len(gs) > 0 {
			st = st.clone()
			for _, h := range gs {
				st.release(h.kind, h.key)
			}
		}
		return st
	case *cscan.ExprStmt:
		return w.calls(s.Calls, st)
	case *cscan.IfStmt:
		st = w.calls(s.CondCalls, st)
		if st.dead {
			return st
		}
		onTrue, onFalse := w.condAcquire(s.Cond, s.CondCalls)
		thenSt := w.stmt(s.Then, withHeld(st, onTrue))
		elseSt := w.stmt(s.Else, withHeld(st, onFalse))
		return mergeStates(thenSt, elseSt)
	case *cscan.LoopStmt:
		st = w.calls(s.CondCalls, st)
		if st.dead {
			return st
		}
		var brk ctxState = deadState
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
	case *cscan.SwitchStmt:
		st = w.calls(s.CondCalls, st)
		if st.dead {
			return st
		}
		var brk ctxState = deadState
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
	case *cscan.CaseStmt:
		return st
	case *cscan.ReturnStmt:
		st = w.calls(s.Calls, st)
		if !st.dead {
			w.rets = append(w.rets, st)
			w.retExprs = append(w.retExprs, s.Expr)
		}
		return deadState
	case *cscan.GotoStmt:
		if !st.dead {
			if p, ok := w.pending[s.Label]; ok {
				w.pending[s.Label] = mergeStates(p, st)
			} else {
				w.pending[s.Label] = st.clone()
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
		if n := len(w.breaks); n > 0 && !st.dead {
			*w.breaks[n-1] = mergeStates(*w.breaks[n-1], st)
		}
		return deadState
	case *cscan.ScopedGuardStmt:
		w.visit(callVisit{call: s.Call, state: st})
		kind, key, ok := w.r.m.guardKind(s.Call)
		if !ok {
			return w.stmt(s.Body, st)
		}
		h := held{kind: kind, key: key, must: true, at: w.step(s.Line, callText(s.Call))}
		out := w.stmt(s.Body, withHeld(st, []held{h}))
		if !out.dead {
			out = out.clone()
			out.release(kind, key)
		}
		return out
	}
	return st
}

// isForever reports a loop left only by break, return or goto.
func isForever(s *cscan.LoopStmt) bool {
	c := strings.ReplaceAll(s.Cond, " ", "")
	if s.Kind == "for" {
		parts := strings.Split(c, ";")
		return len(parts) == 3 && parts[1] == ""
	}
	return s.Kind == "while" && (c == "1" || c == "true")
}

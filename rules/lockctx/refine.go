package lockctx

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// refineEffects recomputes a summary's effect on the caller (contexts held
// at return, contexts released) path-sensitively from the statement tree:
// the flat call list cannot tell that both branches of an if/else unlock.
// Only functions whose flat summary has an Effect get here, and (addOnly)
// those that enter a context and return a value: their flat summary
// stays, with the contexts the walk finds held at return added
// (retheld.go).
func (r *Resolver) refineEffects(fn *cscan.Func, s *Summary, addOnly bool) {
	full := r.bodyOf(fn)
	if full == nil {
		return
	}
	// The call reaching the target with nothing held locally, and the
	// caller contexts released before it: as the flat summary chooses
	// (chooseReach), the first of the best rank, so that a certain chain
	// after a call through a function pointer is the one kept.
	var first *Reach
	var w *walker
	w = newWalker(r, full, func(v Visit) {
		if v.Reach == nil || v.State.Dead || !v.State.Empty() || first != nil && reachRank(v.Reach) >= reachRank(first) {
			return
		}
		p := *v.Reach
		p.Drops = append(append([]Effect(nil), w.Drops...), v.Reach.Drops...)
		first = &p
	})
	w.keepDrops = true
	end := w.run(State{})
	if addOnly {
		rets, exprs := w.rets, w.retExprs
		if !end.Dead {
			rets, exprs = append(rets, end), append(exprs, "")
		}
		acq, cond := retEffects(rets, exprs)
		s.Acquires = addEffects(s.Acquires, acq)
		s.CondAcquires = addEffects(s.CondAcquires, cond)
		return
	}
	if s.Reach != nil {
		s.Reach = first
	}
	rets, exprs := w.rets, w.retExprs
	if !end.Dead {
		rets = append(rets, end)
		exprs = append(exprs, "")
	}
	if len(rets) == 0 {
		s.Acquires, s.CondAcquires, s.Drops = nil, nil, w.Drops
		return
	}
	acq, cond := retEffects(rets, exprs)
	s.Acquires, s.CondAcquires = acq, cond
	s.Drops = nil
	for _, d := range w.Drops {
		if len(d.Steps) > 0 {
			s.Drops = append(s.Drops, d)
		}
	}
}

// branchAcquires reports whether fn enters (or leaves) atomic contexts
// inside branches more often than it leaves (enters) any: a lock helper
// taking one lock or another ("if (root) spin_lock_bh(a); else
// spin_lock_bh(b);") or its unlock twin, which the flat summary, seeing
// each call in its own branch only, misses.
func branchAcquires(m *Model, fn *cscan.Func) bool {
	acq, rel, gacq, grel := 0, 0, 0, 0
	for _, c := range fn.Calls {
		op := m.Classify(c).Op
		if op == lockmodel.Take {
			acq++
			if len(c.Guards) > 0 {
				gacq++
			}
		}
		if op == lockmodel.Drop {
			rel++
			if len(c.Guards) > 0 {
				grel++
			}
		}
	}
	return gacq > 1 && gacq > rel || grel > 1 && grel > acq
}

// releases reports whether fn leaves an atomic context anywhere (directly
// or through a callee), which the flat summary may misjudge inside
// branches.
func (r *Resolver) releases(fn *cscan.Func) bool {
	for _, c := range fn.Calls {
		if r.m.Classify(c).Op == lockmodel.Drop {
			return true
		}
	}
	for _, c := range fn.Calls {
		if r.m.primitive(c) {
			continue
		}
		if cs := r.calleeSummary(c, fn); cs != nil && len(cs.Drops) > 0 {
			return true
		}
	}
	return false
}

package lockctx

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// refineEffects recomputes a summary's effect on the caller (contexts held
// at return, contexts released) path-sensitively from the statement tree:
// the flat call list cannot tell that both branches of an if/else unlock.
// Only functions whose flat summary has an Effect get here, a few percent.
func (r *Resolver) refineEffects(fn *cscan.Func, s *Summary) {
	full := fn
	if full.Body == nil {
		if r.ix == nil {
			return
		}
		if full = r.ix.Full(fn); full == nil || full.Body == nil {
			return
		}
	}
	// The first call reaching the target with nothing held locally, and the
	// caller contexts released before it.
	var first *Reach
	var w *walker
	w = newWalker(r, full, func(v Visit) {
		if first != nil || v.Reach == nil || v.State.Dead || !v.State.Empty() {
			return
		}
		p := *v.Reach
		p.Drops = append(append([]Effect(nil), w.Drops...), v.Reach.Drops...)
		first = &p
	})
	w.keepDrops = true
	end := w.run(State{})
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
	has := func(st State, kind, key string) bool {
		for _, h := range st.Held {
			if h.Kind == kind && h.Key == key && h.Must {
				return true
			}
		}
		return false
	}
	var acq, cond []Effect
	for _, h := range rets[0].Held {
		all, onTrue, onFalse, anyFalse := true, true, false, false
		for i, st := range rets {
			hs := has(st, h.Kind, h.Key)
			f := falseish(exprs[i])
			all = all && hs
			if f {
				anyFalse = true
				onFalse = onFalse || hs
			} else if !hs {
				onTrue = false
			}
		}
		e := Effect{Kind: h.Kind, Key: h.Key, Steps: append([]report.Step{h.At}, h.Via...)}
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
		for _, h := range st.Held {
			dup := false
			for _, e := range append(append([]Effect(nil), acq...), cond...) {
				if e.Kind == h.Kind && e.Key == h.Key {
					dup = true
				}
			}
			if dup {
				continue
			}
			ok, anyFalse := true, false
			for j, st2 := range rets {
				hs := has(st2, h.Kind, h.Key)
				if falseish(exprs[j]) {
					anyFalse = true
					ok = ok && !hs
				} else {
					ok = ok && hs
				}
			}
			if ok && anyFalse {
				cond = append(cond, Effect{Kind: h.Kind, Key: h.Key, Steps: append([]report.Step{h.At}, h.Via...)})
			}
		}
		break
	}
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
		if _, ok := m.Acquire(c.Name); ok {
			acq++
			if len(c.Guards) > 0 {
				gacq++
			}
		}
		if _, ok := m.Release(c.Name); ok {
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
		if _, ok := r.m.Release(c.Name); ok {
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

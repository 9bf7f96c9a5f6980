package lockctx

import "github.com/autosel-bot/autosel-bot/cscan"

// A recursive component of the call graph (a strongly connected
// component, found as in Tarjan's algorithm over SummaryOf's stack) is
// summarised in rounds: back edges read the previous round's summaries,
// and the root redoes the round until no member's summary changes in what
// callers use, or maxComponentRounds.

// maxComponentRounds bounds the iterations over one recursive component.
// Linux 6.1's components all settle below it (the largest, 9,300
// functions entered at vsprintf(), in 7 rounds: releases travel up it one
// back edge a round), so what callers use of a summary does not depend
// on where its component was entered.
const maxComponentRounds = 8

// openFrame returns the stack position of the frame that provisional
// member fn's component is still open at: the frame at was on the stack
// when fn returned; if it has returned since, provisional itself, the
// frame its own component was at, and so on. (Tarjan's algorithm
// compares discovery numbers; stack positions are reused, so they are
// resolved through the frames.) The answer is kept for fn.
func (r *Resolver) openFrame(fn, at *cscan.Func) (int, bool) {
	for g := at; g != nil; g = r.pendingAt[g] {
		if i, ok := r.pos[g]; ok {
			r.pendingAt[fn] = g
			return i, true
		}
	}
	return 0, false
}

// lowerTop lowers the lowest reachable stack position of the function
// being summarised to i: it belongs to the component of the frame at i.
func (r *Resolver) lowerTop(i int) {
	r.taint() // a recursive component is never shared
	if top := len(r.low) - 1; top >= 0 && i < r.low[top] {
		r.low[top] = i
	}
}

// changed reports whether s differs from the previous round's summary of
// fn in what callers use (whether it reaches the target, its effects, the
// parameters whose values make it reach the target).
func (r *Resolver) changed(fn *cscan.Func, s *Summary) bool {
	p := r.prev[fn]
	if p == nil {
		p = &Summary{}
	}
	return (p.Reach == nil) != (s.Reach == nil) || !sameAlt(p.Alt, s.Alt) || len(p.Acquires) != len(s.Acquires) ||
		len(p.CondAcquires) != len(s.CondAcquires) || len(p.Drops) != len(s.Drops) ||
		argParams(p) != argParams(s)
}

// argParams returns the set of parameters s's argument-dependent reaches
// depend on, as a bit mask (the 64th bit stands for any later one): a
// caller passing a sleeping mask in one of them reaches the target.
func argParams(s *Summary) uint64 {
	var m uint64
	for _, a := range s.ArgReaches {
		m |= 1 << min(max(a.Param, 0), 63)
	}
	return m
}

// sameAlt reports whether two summaries' Alt chains are both missing or
// need the same parameter values: what callers use of them.
func sameAlt(a, b *Reach) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameParamCond(a.Cond, b.Cond)
}

package sleep

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// Lock helpers that now return in atomic context: the regions after their
// calls, in their callers and through the wrappers that hand the context
// on, are re-checked for sleeping calls.

// lockChange handles a function that now returns with an atomic context
// held that it did not enter before (a lock helper turned from a mutex
// into a spinlock): every caller's region after the call is re-checked
// for sleeping calls.
func (r *checker) lockChange(nf, of *cscan.Func) {
	ns := r.newR.SummaryOf(nf)
	if len(ns.Acquires)+len(ns.CondAcquires) == 0 {
		return
	}
	var os *lockctx.Summary
	if of != nil {
		os = r.oldR.SummaryOf(of)
	}
	had := func(kind string) bool {
		if os == nil {
			return false
		}
		for _, e := range entered(os) {
			if e.Kind == kind {
				return true
			}
		}
		return false
	}
	newKinds := map[string]bool{}
	for _, e := range entered(ns) {
		if !had(e.Kind) {
			newKinds[e.Kind] = true
		}
	}
	if len(newKinds) == 0 {
		return
	}
	if r.p.Index == nil {
		r.p.Note(fmt.Sprintf("sleep-in-atomic: %s() now returns in atomic context; its callers' regions were not checked: no --tree", nf.Name))
		return
	}
	r.recheckCallers(nf, newKinds)
}

// maxWrapperLevels bounds the levels of wrappers followed up from a lock
// helper that now returns in atomic context (the helper's own callers are
// level 0).
const maxWrapperLevels = 4

// recheckCallers re-checks the region after each call of nf, a function
// that now returns holding a context of one of kinds, in its callers; a
// caller that hands the context on to its own callers (a wrapper ending
// in `return helper(x)`) has its callers re-checked in turn.
func (r *checker) recheckCallers(nf *cscan.Func, kinds map[string]bool) {
	// seen holds the (caller, callee) regions re-checked, wrappers the
	// callers already followed up.
	seen, wrappers := map[string]bool{}, map[string]bool{}
	n := 0
	level := []*cscan.Func{nf}
	for depth := 0; depth <= maxWrapperLevels && len(level) > 0; depth++ {
		var next []*cscan.Func
		for _, cur := range level {
			static := cur.Static && !strings.HasSuffix(cur.File, ".h")
			for _, site := range r.p.Index.Callers(cur.Name) {
				if static && site.Func.File != cur.File {
					continue
				}
				id := site.Func.File + ":" + site.Func.Name
				if seen[id+"->"+cur.Name] {
					continue
				}
				seen[id+"->"+cur.Name] = true
				if n++; n > maxReverseCallers {
					r.p.Note(fmt.Sprintf("sleep-in-atomic: %s() now returns in atomic context; only %d callers were re-checked", nf.Name, maxReverseCallers))
					return
				}
				caller := r.callerBody(site.Func)
				if caller == nil {
					continue
				}
				r.recheckRegion(caller, cur, kinds)
				if !wrappers[id] && handsOn(r.newR.SummaryOf(caller), cur, kinds) {
					wrappers[id] = true
					next = append(next, caller)
				}
			}
		}
		level = next
	}
}

// recheckRegion reports caller's sleeping calls made while it holds a
// context of one of kinds entered by its call of cur.
func (r *checker) recheckRegion(caller, cur *cscan.Func, kinds map[string]bool) {
	for _, e := range events(r.newR, caller) {
		via := false
		for _, h := range e.state.Held {
			if kinds[h.Kind] && h.At.What == "calls "+cur.Name+"()" {
				via = true
			}
		}
		if via {
			r.report(caller, e.call.Line, e.state, e.proof, "")
		}
	}
}

// handsOn reports whether a function with summary s returns holding a
// context of one of kinds that its call of cur entered, on every return
// or for some return values.
func handsOn(s *lockctx.Summary, cur *cscan.Func, kinds map[string]bool) bool {
	for _, e := range entered(s) {
		if kinds[e.Kind] && len(e.Steps) > 0 && e.Steps[0].What == "calls "+cur.Name+"()" {
			return true
		}
	}
	return false
}

// entered returns the contexts a function with summary s returns holding,
// on every return or for some return values.
func entered(s *lockctx.Summary) []lockctx.Effect {
	return append(append([]lockctx.Effect(nil), s.Acquires...), s.CondAcquires...)
}

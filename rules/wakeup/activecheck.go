package wakeup

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/report"
)

// waitqueue_active() checks (rule 6): a lockless test for sleepers added
// without a barrier or the queue lock before it.

// checkActive reports waitqueue_active() checks added without a barrier or
// the queue lock (rule 6).
func (r *checker) checkActive() {
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		if nw == nil {
			continue
		}
		used := map[*wsite]bool{}
		weakened := map[*wsite]bool{}
		done := r.checkGating(old, nw)
		for _, a := range nw.sitesOn(siteActive, "") {
			if done[a] || a.BuiltinBarrier || !a.Changed() {
				continue
			}
			if o := r.counterpart(old, a, used); o != nil {
				used[o] = true
				if !o.BuiltinBarrier {
					continue // the check was already there
				}
				weakened[a] = true
			}
			if r.barrierBefore(nw, a) || r.impliedBarrierBefore(nw, a) {
				continue
			}
			expl := fmt.Sprintf("waitqueue_active() reads %s without its lock. Unless a full barrier (smp_mb()) separates the store that makes the "+
				"wait condition true from this check (pairing with the barrier in set_current_state()/prepare_to_wait()), the waker can miss a waiter "+
				"that is just going to sleep and the wake-up is lost. Use wq_has_sleeper(), add smp_mb(), or call wake_up() unconditionally.", a.Q)
			if nw.Partial {
				expl += " (Only the hunks were visible: a barrier earlier in the function would not be seen.)"
			}
			f := report.Finding{
				Category: CategoryActive,
				Severity: report.SeverityNote,
				File:     nw.File, Func: nw.Name, Line: a.Line(), Key: a.Q,
				Message:     fmt.Sprintf("%s(%s) added without a memory barrier or the queue lock", a.Call.Name, a.Arg),
				Explanation: expl,
				Evidence:    []string{nw.evidence(a.Line())},
			}
			if weakened[a] {
				r.decideWeakenedActive(&f, nw, a)
			}
			r.add(f)
		}
	}
}

// barrierBefore reports whether a barrier call or the queue's lock precedes
// the active check a in source order.
func (r *checker) barrierBefore(f *wfunc, a *wsite) bool {
	held := 0
	for _, s := range f.Sites {
		if s.Line() > a.Line() || (s.Line() == a.Line() && s == a) {
			break
		}
		switch s.Kind {
		case siteBarrier:
			return true
		case siteActive:
			// wq_has_sleeper() of another queue just before, on every
			// path to a and with no store between: its smp_mb() orders
			// a's load too.
			if s.BuiltinBarrier && guardsWithin(s.Call.Guards, a.Call.Guards) && !storeBetween(f, s.Line(), a.Line()) {
				return true
			}
		case siteLock:
			if s.Q == a.Q {
				held++
			}
		case siteUnlock:
			if s.Q == a.Q && held > 0 {
				held--
			}
		}
	}
	return held > 0
}

package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// Lockless "are there sleepers?" gating of wake-ups (category
// waitqueue-active): a wake-up that used to run unconditionally, or behind
// a check with a built-in barrier (wq_has_sleeper), now runs only when a
// bare waitqueue_active() sees a sleeper. The waker stores the condition
// and loads the queue head; the sleeper stores the queue head
// (prepare_to_wait, poll_wait) and loads the condition: without a full
// barrier between each side's store and load, both can read the old value
// and the sleeper is never woken.

// gating is how the wake-ups of one queue in one function are guarded.
type gating struct {
	// good counts wake-ups not behind a bare lockless check (unconditional,
	// barrier-checked, or ordered by a barrier or the queue lock).
	good int
	// gated are wake-ups behind a bare lockless check, with that check.
	gated map[*wsite]*wsite
}

// gatingOf classifies f's wake-ups of q.
func (r *checker) gatingOf(f *wfunc, q string) gating {
	g := gating{gated: map[*wsite]*wsite{}}
	if f == nil {
		return g
	}
	actives := f.sitesOn(siteActive, "")
	for _, w := range f.sitesOn(siteWake, q) {
		var by *wsite
		for _, a := range actives {
			if a.BuiltinBarrier || !r.sameQueue(a.Q, q) || r.barrierBefore(f, a) || r.impliedBarrierBefore(f, a) {
				continue
			}
			if r.gates(f, a, w) {
				by = a
				break
			}
		}
		if by != nil {
			g.gated[w] = by
		} else {
			g.good++
		}
	}
	return g
}

// sameQueue reports whether two keys name the same queue (equal, or the
// same field when one side's type is unknown).
func (r *checker) sameQueue(a, b string) bool {
	if a == b || r.compatible(a, b) {
		return true
	}
	return (strings.HasPrefix(a, "*.") || strings.HasPrefix(b, "*.")) && keyField(a) != "" && keyField(a) == keyField(b)
}

// gates reports whether the active check a decides whether wake-up w runs:
// a is in the condition of one of w's guards, or in the condition of an
// earlier return that skips w.
func (r *checker) gates(f *wfunc, a, w *wsite) bool {
	for _, g := range w.Call.Guards {
		if g.Line == a.Line() && (g.Kind == "if" || g.Kind == "else") {
			return true
		}
	}
	if f.F == nil {
		return false
	}
	for _, ret := range f.F.Returns {
		if ret.Line <= a.Line() || ret.Line >= w.Line() {
			continue
		}
		for _, g := range ret.Guards {
			if g.Line == a.Line() {
				return true
			}
		}
	}
	return false
}

// checkGating reports wake-ups of a queue that the patch put behind a bare
// lockless check, and returns the active-check sites it reported on.
func (r *checker) checkGating(old, nw *wfunc) map[*wsite]bool {
	done := map[*wsite]bool{}
	if old == nil || nw == nil {
		return done
	}
	var queues []string
	for _, w := range nw.sitesOn(siteWake, "") {
		if w.WKind == "" || w.WKind == "wait" || w.WKind == "add" {
			queues = appendUnique(queues, w.Q)
		}
	}
	for _, q := range queues {
		ng := r.gatingOf(nw, q)
		og := r.gatingOf(old, q)
		for oq := range r.renames {
			if r.compatible(oq, q) && oq != q {
				o2 := r.gatingOf(old, oq)
				og.good += o2.good
			}
		}
		if ng.good >= og.good {
			continue
		}
		for w, a := range ng.gated {
			if done[a] || (!a.Changed() && !w.Changed() && !r.guardChanged(nw, w)) {
				continue
			}
			done[a] = true
			r.reportGating(old, nw, w, a)
		}
	}
	return done
}

// guardChanged reports whether one of w's guard lines was changed.
func (r *checker) guardChanged(f *wfunc, w *wsite) bool {
	for _, g := range w.Call.Guards {
		if f.changed(g.Line) {
			return true
		}
	}
	return false
}

func (r *checker) reportGating(old, nw *wfunc, w, a *wsite) {
	var waiters []*wsite
	for _, s := range r.waitersOf(w.Q) {
		if s.Fn.Name != nw.Name {
			waiters = append(waiters, s)
		}
	}
	weakened := ""
	for _, o := range old.sitesOn(siteActive, "") {
		if o.BuiltinBarrier && o.Changed() && (r.sameQueue(o.Q, w.Q) || argWithin(o.Arg, w.Arg)) {
			weakened = o.Call.Name
		}
	}
	f := report.Finding{
		Category: CategoryActive,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: a.Line(), Key: w.Q,
		Evidence: []string{nw.evidence(a.Line()), nw.evidence(w.Line())},
	}
	for _, o := range old.sitesOn(siteWake, "") {
		if r.sameQueue(o.Q, w.Q) && o.Changed() {
			f.Old = append(f.Old, old.evidence(o.Line()))
		}
	}
	if weakened != "" {
		f.Message = fmt.Sprintf("wake-up of %s now gated by a bare %s() (was %s(), which has the barrier)", w.Q, a.Call.Name, weakened)
	} else {
		f.Message = fmt.Sprintf("wake-up of %s now skipped when a lockless %s() sees no sleeper, without a barrier", w.Q, a.Call.Name)
	}
	// A lock that every waiter also takes orders the pair.
	ordered := ""
	for _, h := range r.heldWithCallers(nw, a.Line()) {
		if queueLockOf(h.key, []string{w.Q}) {
			ordered = h.describe()
			break
		}
		if len(waiters) > 0 {
			all := true
			for _, s := range waiters {
				if !r.peerHolds(s.Fn, h, s.Line()) {
					all = false
				}
			}
			if all {
				ordered = h.describe()
				break
			}
		}
	}
	section := ""
	if ordered == "" {
		section = r.orderedBySectionBefore(nw, a.Call, waiters)
	}
	storeText, _ := codeLine(nw, a.Line(), -1)
	switch {
	case section != "":
		f.Explanation = fmt.Sprintf("%s() reads %s without a barrier after releasing %s, with no store after it; its sleepers queue themselves and then take that lock to test their condition, so the lock orders the condition store against their test.", a.Call.Name, w.Q, section)
		r.add(f)
		return
	case ordered != "":
		f.Explanation = fmt.Sprintf("%s() reads %s without a barrier, but under %s, which its sleepers take too: the lock orders the condition store against their check.", a.Call.Name, w.Q, ordered)
		r.add(f)
		return
	case len(waiters) == 0 && weakened == "":
		f.Explanation = fmt.Sprintf("%s() reads %s without its lock and without a full barrier after the store that makes the wait condition true. A sleeper that queued itself and still read the old condition is not seen, and the wake-up is lost. Use wq_has_sleeper() (or smp_mb() before the check), or wake unconditionally. The sleepers of %s were not found (a tree shows them).", a.Call.Name, w.Q, w.Q)
		r.add(f)
		return
	}
	f.Severity = report.SeverityRisk
	peerName, peerText, cond := "a sleeper of "+w.Q, "prepare_to_wait()/poll_wait(): queues itself", "its condition"
	var names []string
	for _, s := range waiters {
		names = appendUnique(names, siteWhere(s))
	}
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	if len(waiters) > 0 {
		s := waiters[0]
		peerName, peerText = s.Fn.Name+"()", s.Text()
		if c := waitCond(s); c != "" {
			cond = c
		}
		f.Chain = append(f.Chain, step(s, "sleeps on "+w.Q+": "+s.Text()))
	}
	f.Chain = append(f.Chain, step(a, "lockless check without a barrier: "+a.Text()))
	f.Chain = append(f.Chain, step(w, "wake-up skipped when it sees no sleeper: "+w.Text()))
	if storeText == "" {
		storeText = "makes the wait condition true"
	}
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", peerName, [][2]string{
		{storeText, ""},
		{"  (store still in the store buffer)", peerText},
		{"", "  (queued; the barrier in set_current_state)"},
		{"", "checks " + cond + ": old value, false"},
		{a.Text() + " : empty", ""},
		{"  -> wake-up skipped", "schedule(): sleeps, nobody wakes it"},
	})...)
	sleepers := "the sleepers of " + w.Q
	if len(names) > 0 {
		sleepers = strings.Join(names, ", ")
	}
	f.Explanation = fmt.Sprintf("%s() now decides whether to wake %s with a bare %s(), which loads the queue head without its lock and without a full barrier after the store that makes the wait condition true. The sleepers (%s) store the queue head and then load the condition; without a barrier on both sides each can read the other's old value, as shown, and the sleeper waits for a wake-up that was skipped. Use wq_has_sleeper() (smp_mb() before the check, pairing with set_current_state() in the sleeper), or wake unconditionally.",
		nw.Name, w.Q, a.Call.Name, sleepers)
	r.add(f)
}

// argWithin reports whether the expression a (a socket_wq pointer, say)
// is the base of the queue expression q ("&wq->wait").
func argWithin(a, q string) bool {
	aw, qw := identWords(a), identWords(q)
	if len(aw) == 0 || len(aw) >= len(qw) {
		return false
	}
	for i, w := range aw {
		if qw[i] != w {
			return false
		}
	}
	return true
}

// impliedBarrierBefore reports whether an operation with a full barrier
// (a value-returning atomic, smp_store_mb) runs before the check a on its
// path: it orders the waker's store before the check as smp_mb() would.
func (r *checker) impliedBarrierBefore(f *wfunc, a *wsite) bool {
	if f.F == nil {
		return false
	}
	// The queue's own lock taken earlier on the path: a store made under
	// it is ordered against prepare_to_wait(), which takes it too.
	for _, s := range f.Sites {
		if s.Kind == siteLock && s.Line() < a.Line() && r.sameQueue(s.Q, a.Q) && samePath(s.Call, a.Call) {
			return true
		}
	}
	for _, c := range f.F.Calls {
		if c.Line > a.Line() {
			break
		}
		if r.p.ordering(c.Name) == "full" && r.p.actives[c.Name] == nil && (c.Line < a.Line() || c.Name != a.Call.Name) && samePath(c, a.Call) &&
			!storeBetween(f, c.Line, a.Line()) {
			return true
		}
	}
	return false
}

// storeBetween reports whether a store sits on a line after from and
// before to: a barrier before it does not order it.
func storeBetween(f *wfunc, from, to int) bool {
	for l := from + 1; l < to; l++ {
		if t, ok := f.lines[l]; ok && isStore(t) {
			return true
		}
	}
	return false
}

package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A store the patch adds that makes the condition of a queue's waiters
// true with no wake-up of that queue after it on its path: not in the
// function, not in a callee handed the object or its queue, not in a
// caller after the call (coveringWake). The waiters sleep on with their
// condition true until some unrelated wake-up comes (a disconnect flag
// set without waking the readers that wait for it).

// checkStoreUnannounced reports such a store, once per function.
func (r *checker) checkStoreUnannounced() {
	r.eachAddedStore(r.storeUnannounced)
}

// storeUnannounced reports (and returns true) when the store of val to
// lhs at line l of nw makes a waiter's condition true and nothing wakes
// the waiter's queue after it.
func (r *checker) storeUnannounced(nw *wfunc, l int, lhs, val string) bool {
	member := wakeMember(lhs)
	typ := structOfKey(queueKey("&"+lhs, nw.vt, nw.Name))
	if typ == "" {
		return false
	}
	for _, s := range nw.sitesOn(siteWake, "") {
		if !s.Derived && wakeObject(s.Arg) == wakeObject(lhs) {
			// The function wakes the object's queues: a store after
			// its last wake-up is storeorder_added.go's, one announced
			// on another queue storeorder_wrongqueue.go's.
			return false
		}
	}
	for _, w := range r.waitersNaming(member) {
		if w.Fn.Name == nw.Name || structOfKey(w.Q) != typ || !waitsFor(w, member, val) {
			continue
		}
		if r.coveringWake(nw, w.Q, l+1, nil) != "" {
			return false
		}
		r.reportStoreUnannounced(nw, l, w)
		return true
	}
	return false
}

// reportStoreUnannounced reports the store at line l of nw that waiter w
// waits for, with no wake-up after it.
func (r *checker) reportStoreUnannounced(nw *wfunc, l int, w *wsite) {
	st := strings.TrimSpace(nw.text(l))
	f := report.Finding{
		Category: CategoryRemoved,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: l, Key: w.Q,
		Message:  fmt.Sprintf("%s() makes `%s`, which the waiters of %s wait for, and nothing wakes them after it", nw.Name, st, w.Q),
		Evidence: []string{nw.evidence(l)},
	}
	f.Chain = append(f.Chain,
		step(w, "waits on "+w.Q+": "+w.Text()),
		report.Step{Func: nw.Name, File: nw.File, Line: l, What: "makes its condition true, no wake-up follows: " + st})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{"", "condition false: sleeps on " + w.Q},
		{st, ""},
		{"(no wake-up of " + w.Q + " follows)", "sleeps on although its condition holds"},
	})...)
	f.Explanation = fmt.Sprintf("%s waits on %s for %s. %s() now makes that true with `%s`, and nothing on this path (the function, a callee handed the object or its queue, a caller after the call) wakes %s: a waiter already asleep is not told and sleeps on until another wake-up comes, or forever. Wake %s after the store.",
		siteWhere(w), w.Q, condOrState(w), nw.Name, st, w.Q, w.Q)
	r.add(f)
}

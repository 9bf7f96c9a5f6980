package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A sleeper check that used to carry its barrier (wq_has_sleeper()) and
// now is a bare waitqueue_active() removes the waker's half of the
// store-buffering pair: the waker stores the condition and loads the
// queue, the sleeper (prepare_to_wait*(), wait_event*()) stores itself
// into the queue and loads the condition. With waiters of the queue in
// the tree, no lock held around the check that they take to queue
// themselves, and no barrier before it, the pair is unordered.

// decideWeakenedActive raises f, the note on active check a that replaced
// a check with a built-in barrier, to a risk when the queue has waiters
// elsewhere and nothing else orders the pair.
func (r *checker) decideWeakenedActive(f *report.Finding, nw *wfunc, a *wsite) {
	var waiters []*wsite
	for _, w := range r.waitersOf(a.Q) {
		if w.Fn.Name != nw.Name && w.Kind == siteWait {
			waiters = append(waiters, w)
		}
	}
	if len(waiters) == 0 {
		return
	}
	for _, h := range r.heldWithCallers(nw, a.Line()) {
		if queueLockOf(h.key, []string{a.Q}) {
			return
		}
		all := true
		for _, w := range waiters {
			if !r.peerHolds(w.Fn, h, w.Line()) {
				all = false
				break
			}
		}
		if all {
			return
		}
	}
	if r.orderedBySectionBefore(nw, a.Call, waiters) != "" {
		return
	}
	w := waiters[0]
	for _, x := range waiters {
		if x.Fn.File == nw.File {
			w = x
			break
		}
	}
	store := storeAbove(nw, a.Line())
	if store == "" || !isStore(store) {
		store = "makes the condition true"
	}
	r.riskUnwoken(f, w, nw, a.Line(), "lockless sleeper check without its barrier: "+a.Text())
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{store, ""},
		{"  (the store sits in the store buffer)", "queues itself: " + w.Text()},
		{"", "  (full barrier: set_current_state())"},
		{"", "checks " + strings.TrimPrefix(strings.TrimSuffix(condOrState(w), "`"), "`") + ": old value"},
		{a.Text() + ": queue looks empty", ""},
		{"  -> no wake-up", "sleeps; nobody wakes it"},
	})...)
	f.Explanation = fmt.Sprintf("%s() replaced a sleeper check that carries a full barrier with %s(), which has none. "+
		"%s waits on %s with a barrier between queueing itself and testing its condition; the waker needs the matching barrier "+
		"between its store and the check of the queue, or the two CPUs can each miss the other's store (as shown) and the wake-up is lost. "+
		"Keep wq_has_sleeper(), or put smp_mb() before the check.", nw.Name, a.Call.Name, siteWhere(w), a.Q)
}

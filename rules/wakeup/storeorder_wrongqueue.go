package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A store the patch adds that makes the condition of one queue's waiters
// true, announced by a wake-up of another queue of the same object: the
// waiters of the first queue are never woken for it (dev->dead = true;
// wake_up(&dev->close_wq) when the readers wait on dev->read_wq for
// dev->dead). Unless a wake-up of their queue follows on the path (in the
// function, a callee or a caller), they sleep on.

// checkStoreWokeOtherQueue reports such a store.
func (r *checker) checkStoreWokeOtherQueue() {
	r.eachAddedStore(r.storeWokeOtherQueue)
}

// storeWokeOtherQueue reports (and returns true) when the store of val to
// lhs at line l of nw is followed by wake-ups of the object's queues none
// of whose waiters wait for it, while a queue of the same struct type has
// waiters that do and no wake-up of it covers the store.
func (r *checker) storeWokeOtherQueue(nw *wfunc, l int, lhs, val string) bool {
	obj, member := wakeObject(lhs), wakeMember(lhs)
	var woken []*wsite
	for _, s := range nw.sitesOn(siteWake, "") {
		if s.Line() > l && !s.Derived && wakeObject(s.Arg) == obj && structOfKey(s.Q) != "" {
			woken = append(woken, s)
		}
	}
	if len(woken) == 0 {
		return false
	}
	typ := structOfKey(woken[0].Q)
	for _, w := range r.waitersNaming(member) {
		if structOfKey(w.Q) != typ || !waitsFor(w, member, val) {
			continue
		}
		for _, s := range woken {
			if r.sameQueue(s.Q, w.Q) {
				return false // the store's own queue is woken
			}
		}
		if r.coveringWake(nw, w.Q, l+1, nil) != "" {
			return false
		}
		r.reportStoreWokeOtherQueue(nw, l, woken[0], w)
		return true
	}
	return false
}

// structOfKey returns the struct type of a queue key held in a struct
// member ("bar_dev" of "bar_dev.wq"), "" for other keys.
func structOfKey(q string) string {
	if strings.Contains(q, ":") || strings.HasPrefix(q, "*.") {
		return ""
	}
	i := strings.IndexByte(q, '.')
	if i <= 0 {
		return ""
	}
	return q[:i]
}

// waitersNaming returns the waiters whose call names member in an
// argument: the patch's new sides and the tree's other functions.
func (r *checker) waitersNaming(member string) []*wsite {
	var out []*wsite
	for _, f := range r.news {
		if f == nil {
			continue
		}
		for _, s := range f.sitesOn(siteWait, "") {
			if strings.Contains(waitCond(s), member) {
				out = append(out, s)
			}
		}
	}
	if r.tree != nil {
		out = append(out, r.tree.waitersNaming(member)...)
	}
	return out
}

// waitersNaming returns the wait sites of the tree's functions outside
// the patch whose call has identifier member in its arguments.
func (t *treeView) waitersNaming(member string) []*wsite {
	var out []*wsite
	seen := map[*wsite]bool{}
	t.eachCallOn(member, func(c treeCall) {
		if c.Func == nil || t.r.inPatch[t.relPath(c.Func.File)+":"+c.Func.Name] {
			return
		}
		for _, s := range t.view(c.Func).Sites {
			if s.Kind == siteWait && s.Line() == c.Call.Line && s.Call.Name == c.Call.Name && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	})
	return out
}

// reportStoreWokeOtherQueue reports the store at line l of nw, announced
// by wake-up wk of another queue than waiter w's.
func (r *checker) reportStoreWokeOtherQueue(nw *wfunc, l int, wk, w *wsite) {
	st := strings.TrimSpace(nw.text(l))
	f := report.Finding{
		Category: CategoryTarget,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: l, Key: w.Q,
		Message:  fmt.Sprintf("%s() makes `%s` and wakes %s, but the waiters of %s wait for it", nw.Name, st, wk.Q, w.Q),
		Evidence: []string{nw.evidence(l), nw.evidence(wk.Line())},
	}
	f.Chain = append(f.Chain,
		step(w, "waits on "+w.Q+": "+w.Text()),
		report.Step{Func: nw.Name, File: nw.File, Line: l, What: "makes its condition true: " + st},
		step(wk, "wakes another queue: "+wk.Text()))
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{"", "condition false: sleeps on " + w.Q},
		{st, ""},
		{wk.Text(), ""},
		{"  (wakes the sleepers of " + wk.Q + " only)", "sleeps on although its condition holds"},
	})...)
	f.Explanation = fmt.Sprintf("%s waits on %s for %s. %s() now makes that true with `%s` and then wakes %s, whose waiters are not the ones waiting for it; nothing on this path (the function, its callees or its callers) wakes %s after the store. Wake %s too.",
		siteWhere(w), w.Q, condOrState(w), nw.Name, st, wk.Q, w.Q, w.Q)
	r.add(f)
}

package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// The queue's own lock taken around the stores a sleeper tests
// (category wakeup-barrier): a sleeper that queues its entry and tests
// its condition under the queue's lock (__add_wait_queue(); test_bit())
// has no barrier between the two, and a waker that stores the condition
// under the same lock is ordered against it by the lock. When the waker
// stores outside the lock and then wakes only if a lockless check
// (wq_has_sleeper(), waitqueue_active()) sees a sleeper, the two sides
// can each miss the other's store: the sleeper sees the old condition,
// the waker sees no entry, and nobody wakes the sleeper.

// checkStoreLockRemoved reports the queue lock the patch removed from
// around stores that the function announces with a wake-up gated by a
// lockless check for sleepers, when a sleeper of that queue tests under
// the lock.
func (r *checker) checkStoreLockRemoved(old, nw *wfunc) {
	if old == nil || nw == nil || old.F == nil || nw.F == nil || r.tree == nil {
		return
	}
	for i, c := range old.F.Calls {
		key, ok := r.p.lockCall(c)
		if !ok || key == "" || !old.changed(c.Line) || r.takesLock(nw, key) {
			continue
		}
		if r.wakeDecision(old, r.lockRegion(old, i)) != "" {
			continue // checkLockRemoved's business
		}
		store := regionStore(r, old, i, key)
		if store == "" {
			continue
		}
		var act *wsite
		for _, s := range nw.Sites {
			if s.Kind == siteActive && queueLockOf(key, []string{s.Q}) {
				act = s
				break
			}
		}
		if act == nil {
			continue
		}
		var sleeper *wsite
		for _, w := range r.otherWaiters(act.Q, nw.Name) {
			if w.Fn.F != nil && r.takesLock(w.Fn, key) {
				sleeper = w
				break
			}
		}
		if sleeper == nil {
			continue
		}
		r.reportStoreLockRemoved(old, nw, c.Line, key, store, act, sleeper)
		return
	}
}

// regionStore returns the first store between the lock call at index i of
// f and its unlock, "" if none.
func regionStore(r *checker, f *wfunc, i int, key string) string {
	end := 0
	for _, c := range f.F.Calls[i+1:] {
		if k, ok := r.p.unlockCall(c); ok && k == key {
			end = c.Line
			break
		}
	}
	for l := f.F.Calls[i].Line + 1; l < end; l++ {
		if t, ok := f.lines[l]; ok && isStore(t) {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

func (r *checker) reportStoreLockRemoved(old, nw *wfunc, line int, key, store string, act, sleeper *wsite) {
	lt := strings.TrimSpace(old.text(line))
	f := report.Finding{
		Category: CategoryBarrier,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: r.newLineNear(old, nw, line), Key: act.Q,
		Message:  fmt.Sprintf("%s() no longer holds %s around `%s`, and wakes only if %s sees a sleeper", nw.Name, key, store, act.Call.Name),
		Old:      []string{old.evidence(line)},
		Evidence: []string{nw.evidence(act.Line())},
	}
	f.Chain = append(f.Chain, step(sleeper, "queues and tests under "+key+": "+sleeper.Text()))
	f.Chain = append(f.Chain, report.Step{Func: old.Name, File: old.File, Line: line, What: "lock removed: " + lt})
	f.Chain = append(f.Chain, step(act, "lockless check for sleepers: "+act.Text()))
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", sleeper.Fn.Name+"()", [][2]string{
		{"", "takes " + key},
		{store + " (not yet visible)", sleeper.Text()},
		{"", "  tests the condition: reads the old value"},
		{act.Text() + ": sees no entry yet", ""},
		{"  no wake-up", "drops " + key + ", sleeps"},
	})...)
	f.Explanation = fmt.Sprintf("%s() used to store under %s (`%s`), the lock %s() holds while it queues itself on %s and tests its condition; the lock ordered the store against that test. The store is now made without it and the wake-up depends on %s, a check that reads the queue without the lock: the sleeper's queueing and its test are not ordered by a barrier, so the sleeper can read the old condition while the waker sees an empty queue, and neither wakes the other. Keep the store under %s (or put a full barrier between queueing and testing on the sleeper side).",
		nw.Name, key, store, sleeper.Fn.Name, act.Q, act.Call.Name, key)
	r.add(f)
}

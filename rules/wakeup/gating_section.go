package wakeup

import (
	"maps"
	"slices"

	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// A lockless sleeper check after the waker's critical section.
//
// A waker that stores the condition under a lock, releases it and only
// then tests for sleepers without a barrier ("mutex_unlock(&monc->mutex);
// if (waitqueue_active(&wq)) wake_up_all(&wq);") is still ordered against
// a sleeper that queues itself first and then takes the same lock to test
// the condition: the lock's sections run one after the other. If the
// sleeper's comes first, its queued entry happens before its unlock,
// which happens before the waker's lock, so the waker's later test sees
// it; if the waker's comes first, the sleeper's test sees the store. A
// store between the unlock and the test is not ordered by the lock.

// orderedBySectionBefore returns the lock f holds before line (its
// lockless check, or the barrier that ordered it) and has released there,
// with no store between its last line under it and line, that every one
// of waiters takes after queueing itself to test its condition; "" if
// none.
func (r *checker) orderedBySectionBefore(f *wfunc, line int, waiters []*wsite) string {
	if len(waiters) == 0 {
		return ""
	}
	w := r.walkLocks(f)
	last := map[string]int{}
	locks := map[string]heldLock{}
	for _, l := range w.lines {
		if l >= line {
			break
		}
		for _, h := range r.locksAt(f, l) {
			last[h.key], locks[h.key] = l, h
		}
	}
	for _, h := range r.locksAt(f, line) {
		delete(last, h.key)
	}
	for _, k := range slices.Sorted(maps.Keys(last)) {
		h := locks[k]
		if storeBetween(f, last[k], line) {
			continue
		}
		all := true
		for _, s := range waiters {
			if !r.queuesThenTakes(s, h) {
				all = false
				break
			}
		}
		if all {
			return h.describe()
		}
	}
	return ""
}

// queuesThenTakes reports whether sleeper s tests its condition under
// lock h after it is queued: a wait_event*() whose condition takes it
// (checksUnderLock), or an open-coded loop that queues itself at s and
// takes the lock (by its key or its type) further on.
func (r *checker) queuesThenTakes(s *wsite, h heldLock) bool {
	if waitCond(s) != "" {
		return r.checksUnderLock(s, h)
	}
	if s.WKind != "add" || s.Fn == nil || s.Fn.F == nil {
		return false
	}
	for _, c := range s.Fn.F.Calls {
		if c.Line <= s.Line() {
			continue
		}
		a := r.p.locks.Classify(c)
		if a.Op != lockmodel.Take || a.Arg < 0 || a.Arg >= len(c.Args) {
			continue
		}
		if lockKeyOf(c, a.Arg) == h.key || h.typed != "" && typedLockKey(c.Args[a.Arg], s.Fn.vt, s.Fn.Name, s.Fn.File) == h.typed {
			return true
		}
	}
	return false
}

// sleepersOn returns the sleepers of queues qs outside function skip (the
// waker's own), each once.
func (r *checker) sleepersOn(qs []string, skip string) []*wsite {
	var out []*wsite
	for _, q := range qs {
		for _, s := range r.waitersOf(q) {
			if s.Fn.Name != skip && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

package wakeup

// A lockless waitqueue_active() test after the waker released a lock is
// still ordered when every sleeper takes that lock after it queued itself
// and tests its condition under it (libceph: ceph_monc_handle_map()
// unlocks monc->mutex, then tests auth_wq; __ceph_open_session() queues
// on auth_wq and then reads the monmap under monc->mutex). Either the
// sleeper's critical section comes first, and its entry, stored before
// it, is visible to the waker's test (which cannot move above the
// waker's own lock acquisition), or the waker's comes first and the
// sleeper reads the new state.

// orderedByReleasedLock returns a lock nw held before the lockless check
// a and released before it, with no store between the release and the
// check, that every one of waiters takes after it queues itself; "" if
// none.
func (r *checker) orderedByReleasedLock(nw *wfunc, a *wsite, waiters []*wsite) string {
	if len(waiters) == 0 {
		return ""
	}
	heldAtCheck := map[string]bool{}
	for _, h := range r.locksAt(nw, a.Line()) {
		heldAtCheck[h.key] = true
	}
	last := map[string]int{}
	var order []heldLock
	for _, l := range r.walkLocks(nw).lines {
		if l >= a.Line() {
			break
		}
		for _, h := range r.locksAt(nw, l) {
			if heldAtCheck[h.key] {
				continue
			}
			if _, ok := last[h.key]; !ok {
				order = append(order, h)
			}
			last[h.key] = l
		}
	}
	for _, h := range order {
		if storeBetween(nw, last[h.key], a.Line()) {
			continue
		}
		all := true
		for _, s := range waiters {
			if !r.takesAfterQueueing(s, h) {
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

// takesAfterQueueing reports whether waiter s takes lock h (by its key or
// its typed key) after it queues itself: later in its function than the
// add_wait_queue() it is, or, for a waiting primitive that queues and
// tests in one call, in a helper its condition calls.
func (r *checker) takesAfterQueueing(s *wsite, h heldLock) bool {
	if s.WKind != "add" {
		return r.condHelperTakes(s, h)
	}
	for _, l := range r.walkLocks(s.Fn).lines {
		if l <= s.Line() {
			continue
		}
		for _, g := range r.locksAt(s.Fn, l) {
			if g.key == h.key || h.typed != "" && g.typed == h.typed {
				return true
			}
		}
	}
	return false
}

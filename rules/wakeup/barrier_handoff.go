package wakeup

import "github.com/autosel-bot/autosel-bot/cscan"

// A removed write barrier and the wake-up after it: the barrier a wake-up
// implies orders the waker's stores for a task it wakes, so a write
// barrier right before an unconditional wake-up is redundant. A write
// barrier between two stores (the data, then the flag a waiter's
// condition reads) is not: the waiter evaluates its condition before it
// ever sleeps and can see the flag without being woken.

// ordersStoresBeforeWake reports whether removed write barrier o stood
// between two stores ahead of the wake-up that follows it: the later
// store (a flag a waiter's condition reads) must not be seen before the
// earlier one (the data the waiter then uses). A waiter evaluates its
// condition before it ever sleeps, without being woken, so the barrier a
// wake-up implies does not order that pair.
func (r *checker) ordersStoresBeforeWake(f *wfunc, o orderOp) bool {
	if o.strength != "write" {
		return false
	}
	w := r.wakeLineAfter(f, o.call)
	return w != 0 && storeBetween(f, o.call.Line, w) && isStore(storeAbove(f, o.call.Line))
}

// wakeFollows reports whether an unconditional wake-up (not gated by a
// lockless check) follows call c on its path in f.
func (r *checker) wakeFollows(f *wfunc, c cscan.Call) bool {
	return r.wakeLineAfter(f, c) != 0
}

// wakeLineAfter returns the line of the first unconditional wake-up (not
// gated by a lockless check) that follows call c on its path in f, 0 if
// none.
func (r *checker) wakeLineAfter(f *wfunc, c cscan.Call) int {
	for _, w := range f.Sites {
		if w.Kind != siteWake || w.Line() <= c.Line || !samePath(c, w.Call) || w.Gated {
			continue
		}
		gated := false
		for _, a := range f.sitesOn(siteActive, "") {
			if r.gates(f, a, w) {
				gated = true
			}
		}
		if !gated {
			return w.Line()
		}
	}
	return 0
}

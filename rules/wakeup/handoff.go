package wakeup

import "github.com/autosel-bot/autosel-bot/rules/lockmodel"

// handoffWaiters returns the waits on the queue of wake-up o (old side)
// that o's own function makes before it, when the new version nw still
// makes one: a thread does not wake itself, so the sleeper a wake-up
// after the function's own wait wakes is another thread running the same
// function. That is how a function hands a busy state on
// (wait_event(q, !busy) ... busy = false; wake_up(q): "wake up other
// pending commands"), and dropping the wake-up leaves those threads
// asleep. A wait under a sleeping lock held on every path through to the
// wake-up is left out: no other thread reaches the wait while this one
// holds it, so none sleeps there.
func (r *checker) handoffWaiters(o *wsite, nw *wfunc) []*wsite {
	still := false
	for _, s := range nw.sitesOn(siteWait, "") {
		if r.sameQueue(s.Q, o.Q) {
			still = true
		}
	}
	if !still {
		return nil
	}
	var out []*wsite
	for _, s := range o.Fn.sitesOn(siteWait, "") {
		if s.Line() >= o.Line() || !r.sameQueue(s.Q, o.Q) || r.serializedBetween(o.Fn, s.Line(), o.Line()) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// serializedBetween reports whether f holds one sleeping lock (a mutex,
// an rwsem, a semaphore) on every path at both lines.
func (r *checker) serializedBetween(f *wfunc, from, to int) bool {
	for _, a := range r.locksAt(f, from) {
		if !a.must || !lockmodel.Sleeping[a.kind] {
			continue
		}
		for _, b := range r.locksAt(f, to) {
			if b.must && b.key == a.key {
				return true
			}
		}
	}
	return false
}

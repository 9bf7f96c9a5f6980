package wakeup

import "github.com/autosel-bot/autosel-bot/cscan"

// Two refinements of the barrier check from the protocol model:
//
//   - A function that both sleeps on a queue and wakes it (a canceller
//     that waits for another canceller, a reader that wakes the next
//     reader) is its own other side: two tasks run it at once, one
//     sleeping and one waking. Its own waits are the peers when no other
//     function waits on or wakes its queues.
//   - A full barrier removed between the store of the condition and a
//     wake-up that is now unconditional (not gated by a lockless check of
//     the queue) loses nothing: the wake-up takes the queue lock, which
//     the sleeper took to queue itself before it tested the condition, so
//     either the waker finds the entry or the sleeper sees the store. Not
//     so for the wake-ups that test for sleepers without the lock
//     (wake_up_var(), wake_up_bit(): lockless in the wakers table).

// selfPeers returns nw's own waits on the queues it also wakes.
func selfPeers(nw *wfunc, ro roles) []peer {
	var out []peer
	for _, q := range ro.waitQs {
		if !contains(ro.wakeQs, q) {
			continue
		}
		for _, s := range nw.sitesOn(siteWait, q) {
			out = append(out, peerOf(s))
		}
	}
	return out
}

// unconditionalWakeAfter reports whether, in nw, a wake-up of one of the
// queues follows the place where the removed operation o of old stood,
// on its path and not gated by a lockless check of the queue.
func (r *checker) unconditionalWakeAfter(nw *wfunc, o orderOp, queues []string) bool {
	pos := r.newLineBefore(nw, o.call.Line)
	if pos <= 0 {
		return false
	}
	// The operation's guards, at their lines on the new side.
	var gs []cscan.Guard
	for _, g := range o.call.Guards {
		g.Line = r.newLineBefore(nw, g.Line+1)
		gs = append(gs, g)
	}
	at := cscan.Call{Name: o.call.Name, Line: pos, Guards: gs}
	for _, w := range nw.Sites {
		if w.Kind != siteWake || w.Line() <= pos || !samePath(at, w.Call) || !contains(queues, w.Q) {
			continue
		}
		if row := r.p.waker(w.Call.Name); row == nil && w.Gated || row != nil && row.Lockless {
			continue // a wake-up that checks for sleepers locklessly, itself or in its helper
		}
		if len(extraGuards(w.Call.Guards, at.Guards)) > 0 {
			continue // decided by a load the barrier ordered (if (flag) wake_up())
		}
		gated := false
		for _, a := range nw.sitesOn(siteActive, "") {
			if r.gates(nw, a, w) {
				gated = true
			}
		}
		if !gated {
			return true
		}
	}
	return false
}

// newLineBefore returns the new-side line of the last unchanged line
// before old line (0 if none): what the patch put in place of an old
// line comes after it.
func (r *checker) newLineBefore(nw *wfunc, line int) int {
	m := r.maps[nw.File]
	if m == nil {
		return line
	}
	best, bestOld := 0, 0
	for nl, ol := range m.newToOld {
		if ol < line && ol > bestOld {
			if _, ok := nw.lines[nl]; ok {
				best, bestOld = nl, ol
			}
		}
	}
	return best
}

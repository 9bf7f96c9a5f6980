package lockctx

import "strings"

// Which of the caller's contexts a callee's release ends. A summary's
// Drop says that the function releases a context its caller entered
// (unlock_foo() doing spin_unlock(&foo->lock)). A keyless context (RCU,
// preemption, bottom halves, interrupts) is per CPU: the drop ends the
// caller's, whatever the chain. A lock is not: a release written in the
// callee itself may spell the caller's lock differently (its parameter
// for the caller's expression), so it ends the caller's most recent lock
// of the kind, as a lock primitive does. A release reached through more
// calls names a lock in the terms of a function further down, often one
// that function took through a helper the analysis could not pair
// (folio_memcg_lock()/folio_memcg_unlock() deep under a driver's command
// handler): it ends the caller's lock only when the names agree (the same
// expression, or the same last member, move_lock), or when the caller's
// lock has no name (two locks merged). Otherwise every caller of a
// function that reaches such a release would lose its own, unrelated
// lock, and a sleep after the call would be judged unlocked.

// releaseDrop applies drop d, made by a call to callee, to st; it reports
// whether a context of st ended (false: the release goes on to the
// caller's caller).
func (s *State) releaseDrop(d Effect, callee string) bool {
	if d.Key == "" || d.Steps == nil || dropWrittenIn(d, callee) {
		_, ok := s.Release(d.Kind, d.Key)
		return ok
	}
	last := lastMember(d.Key)
	for i := len(s.Held) - 1; i >= 0; i-- {
		h := s.Held[i]
		if h.Kind == d.Kind && (h.Key == "" || h.Key == d.Key || lastMember(h.Key) == last) {
			s.Held = append(s.Held[:i:i], s.Held[i+1:]...)
			return true
		}
	}
	return false
}

// dropWrittenIn reports whether d's release primitive is written in
// callee itself (the last step of its chain is in callee).
func dropWrittenIn(d Effect, callee string) bool {
	return len(d.Steps) > 0 && d.Steps[len(d.Steps)-1].Func == callee
}

// lastMember returns the last member a lock expression names ("lock" for
// pmlmepriv->scanned_queue.lock, "move_lock" for memcg->move_lock), the
// whole expression when it names none.
func lastMember(key string) string {
	i := max(strings.LastIndex(key, "->")+2, strings.LastIndex(key, ".")+1)
	return key[i:]
}

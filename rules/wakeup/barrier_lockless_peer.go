package wakeup

import (
	"strings"
)

// The queue's own lock orders a sleeper that queues itself and tests its
// condition under it against a waker whose wake-up takes that lock after
// its store. It orders nothing against a waker that first tests for
// sleepers without the lock (waitqueue_active(), a lockless wake-up
// primitive, or such a test in a helper it calls before waking): that
// waker's store and check need the sleeper's full barrier, lock or not.

// locklessPeer returns the name of a peer waker that tests for sleepers
// without the queue lock before it wakes ("" if none).
func (r *checker) locklessPeer(peers []peer) string {
	for _, p := range peers {
		if p.wf == nil {
			continue
		}
		for _, s := range p.wf.Sites {
			switch {
			case s.Kind == siteActive && s.Line() <= p.line && !r.queueLockHeld(p.wf, s.Line(), s.Q):
				return p.fn
			case (s.Kind == siteWake || s.Kind == siteGatedWake) && s.Line() == p.line:
				if row := r.p.waker(s.Call.Name); (s.Gated || row != nil && row.Lockless) && !r.queueLockHeld(p.wf, s.Line(), s.Q) {
					return p.fn
				}
			}
		}
		if p.wf.F == nil {
			continue
		}
		for _, c := range p.wf.F.Calls {
			if c.Line < p.line && r.helperTestsSleepers(c.Name, p.wf.File) && len(r.locksAt(p.wf, c.Line)) == 0 {
				return p.fn
			}
		}
	}
	return ""
}

// queueLockHeld reports whether f holds the lock of queue q at line: a
// sleeper check made under it is ordered by it.
func (r *checker) queueLockHeld(f *wfunc, line int, q string) bool {
	for _, h := range r.locksAt(f, line) {
		if queueLockOf(h.key, []string{q}) || r.aliasQueueLock(f, h.key, []string{q}) {
			return true
		}
	}
	return false
}

// maxSleeperHelperLines bounds the helpers helperTestsSleepers reads: a
// wrapper that picks a queue and tests it (sbq_wake_ptr()), not a
// subsystem's whole wake-up path.
const maxSleeperHelperLines = 40

// helperTestsSleepers reports whether the function name (a small helper
// a waker calls before it wakes) tests a queue for sleepers itself.
func (r *checker) helperTestsSleepers(name, file string) bool {
	return r.memoBool("active()"+name, func() bool {
		fn := r.smallDef(name, file, maxSleeperHelperLines)
		if fn == nil {
			return false
		}
		for _, c := range fn.Calls {
			if r.p.actives[c.Name] != nil {
				return true
			}
		}
		return false
	})
}

// aliasQueueLock reports whether lock key names the lock of a local
// pointer of f that aliases one of the queues ("wq = &x->wait;
// spin_lock(&wq->lock)").
func (r *checker) aliasQueueLock(f *wfunc, key string, queues []string) bool {
	v, ok := strings.CutSuffix(key, ".lock")
	if !ok || f == nil || f.vt == nil {
		return false
	}
	if _, ok := f.vt.aliases[v]; !ok {
		return false
	}
	k := r.canonKey(queueKey(v, f.vt, f.Name), f.File)
	for _, q := range queues {
		if k == q {
			return true
		}
	}
	return false
}

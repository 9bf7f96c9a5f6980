package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A _locked wake-up without the queue's lock (category wakeup-barrier):
// wake_up_locked(), wake_up_interruptible_sync_poll_locked(),
// __wake_up_locked_key(), swake_up_locked() and the like walk the queue's
// waiters without taking q->lock, because the caller holds it. That lock
// is what orders the walk against sleepers adding and removing their
// entries (prepare_to_wait*(), finish_wait(), autoremove). A patch that
// moves the function off that lock (to a mutex, say) but keeps the
// _locked wake-up walks a list that changes under it; PROVE_LOCKING's
// lockdep_assert_held() in __wake_up_common() warns.

// queueLockHeld reports whether f holds queue s.Q's own lock at site s
// (a lock of it earlier in f, not released since), with the lock site.
// Only locks and unlocks in a block that encloses s count: an unlock in
// an error branch that leaves the function ("spin_unlock(); BUG();") or
// a lock taken on another branch does not change what s runs under.
func queueLockHeld(f *wfunc, s *wsite) (bool, *wsite) {
	var held *wsite
	for _, x := range f.Sites {
		if x == s {
			return held != nil, held
		}
		if x.Q != s.Q || !cscan.GuardsEnclose(x.Call.Guards, s.Call.Guards) {
			continue
		}
		switch x.Kind {
		case siteLock:
			held = x
		case siteUnlock:
			held = nil
		}
	}
	return false, nil
}

// checkLockedWake reports a _locked wake-up the patch left without the
// queue's lock that the function used to take around it, and says
// whether it did. Only a lock the function took itself counts: its
// callers then cannot hold it (the function would deadlock on it), so
// nothing else provides it.
func (r *checker) checkLockedWake(old, nw *wfunc) bool {
	for _, s := range nw.Sites {
		if s.Kind != siteWake || !s.Locked || s.Q == "" {
			continue
		}
		if held, _ := queueLockHeld(nw, s); held {
			continue
		}
		var lockAt *wsite
		for _, o := range old.Sites {
			if o.Kind != siteWake || o.Call.Name != s.Call.Name || o.Q != s.Q {
				continue
			}
			if held, l := queueLockHeld(old, o); held {
				lockAt = l
				break
			}
		}
		if lockAt == nil || !old.changed(lockAt.Call.Line) {
			continue
		}
		r.add(r.lockedWakeFinding(old, nw, s, lockAt))
		return true
	}
	return false
}

// lockedWakeFinding describes the _locked wake-up s of nw that old ran
// under the queue lock taken at lockAt.
func (r *checker) lockedWakeFinding(old, nw *wfunc, s, lockAt *wsite) report.Finding {
	q := strings.TrimPrefix(strings.TrimSpace(s.Arg), "&")
	lt := strings.TrimSpace(old.text(lockAt.Call.Line))
	now := ""
	for _, c := range nw.F.Calls {
		if c.Line >= s.Call.Line {
			break
		}
		// A lock the patch put in its place (for the message only).
		if _, ok := r.p.lockCall(c); (ok || strings.Contains(c.Name, "lock") && !strings.Contains(c.Name, "unlock")) && nw.changed(c.Line) {
			now = strings.TrimSpace(nw.text(c.Line))
		}
	}
	f := report.Finding{
		Category: CategoryBarrier,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: s.Line(),
		Message: fmt.Sprintf("%s() calls %s() without %s's lock, which it no longer takes (%s)", nw.Name, s.Call.Name, q, lt),
		Old:     []string{old.evidence(lockAt.Call.Line)},
	}
	f.Evidence = append(f.Evidence, nw.evidence(s.Call.Line))
	f.Chain = []report.Step{
		{Func: old.Name, File: old.File, Line: lockAt.Call.Line, What: "lock removed: " + lt},
		{Func: nw.Name, File: nw.File, Line: s.Line(), What: s.Call.Name + "(): walks " + q + "'s waiters without its lock"},
	}
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", "a sleeper on "+q, [][2]string{
		{s.Call.Name + "(): without " + q + ".lock", ""},
		{"  walks the waiters, reads entry E", "prepare_to_wait*()/finish_wait(): takes " + q + ".lock"},
		{"", "  unlinks E (or adds itself after the walk passed)"},
		{"  follows E's stale links: a waiter is skipped", "  sleeps: nobody wakes it"},
	})...)
	under := ""
	if now != "" {
		under = fmt.Sprintf(" It now runs under `%s` instead, which the sleepers do not take.", now)
	}
	f.Explanation = fmt.Sprintf("%s() is a _locked wake-up: it walks %s's wait list without taking %s.lock, because the caller holds it. %s() used to take it (`%s`); the patch removed that, but kept the _locked call.%s Sleepers add and remove their entries under %s.lock, so the walk can follow a stale entry or miss a new one: a lost wake-up or list corruption, and lockdep_assert_held() in __wake_up_common() warns under PROVE_LOCKING. Take the queue lock around the call, or use the variant that takes it (%s).",
		s.Call.Name, q, q, nw.Name, lt, under, q, r.unlockedVariant(s.Call.Name))
	return f
}

// unlockedVariant names the wake-up that takes the queue lock itself
// (the wakers table's unlocked column).
func (r *checker) unlockedVariant(name string) string {
	if w := r.p.waker(name); w != nil && w.Unlocked != "" {
		return w.Unlocked + "()"
	}
	return "the variant without _locked"
}

package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A lock that used to order the two sides (category wakeup-barrier): the
// waker decided whom to wake (which worker is idle, whether anybody
// sleeps) under the lock the sleeper holds while it checks for work and
// goes idle. Without the lock the decision reads a snapshot: a sleeper
// that has checked but is not yet marked idle is missed, and nobody wakes
// it for the new work.

// lockRegion returns the calls of f between the lock call at index i and
// its matching unlock.
func (r *checker) lockRegion(f *wfunc, i int) []cscan.Call {
	key, _ := r.p.lockCall(f.F.Calls[i])
	var out []cscan.Call
	for _, c := range f.F.Calls[i+1:] {
		if k, ok := r.p.unlockCall(c); ok && k == key {
			break
		}
		out = append(out, c)
	}
	return out
}

// wakeDecision returns the call of the region that wakes or decides
// whether to wake (directly or through a function it calls), "" if none.
func (r *checker) wakeDecision(f *wfunc, region []cscan.Call) string {
	for _, c := range region {
		if r.p.waker(c.Name) != nil || r.p.actives[c.Name] != nil || r.p.taskWakers[c.Name] != nil {
			return c.Name
		}
	}
	if r.tree == nil {
		return ""
	}
	for _, c := range region {
		if r.p.isPrimitive(c.Name) || r.p.takesLock(c.Name) {
			continue
		}
		for _, fn := range cscan.PickDefs(r.pass.Index.Funcs(c.Name), f.File) {
			if r.rolesOf(r.tree.view(fn)).waker() {
				return c.Name
			}
		}
	}
	return ""
}

// lockSleepers returns the functions of f's file that take the lock key
// and sleep (the other side the lock ordered): in the tree, and the
// patch's old versions of the functions it changed, so that a patch
// removing the lock from both sides (the sleeper's check-then-queue and
// the waker's clear-then-wake) still finds the sleeper the lock ordered.
func (r *checker) lockSleepers(f *wfunc, key string) []*wfunc {
	if r.tree == nil {
		return nil
	}
	sf := r.pass.Index.File(f.File)
	if sf == nil {
		return nil
	}
	var out []*wfunc
	for _, fn := range sf.Funcs {
		if fn.Name == f.Name {
			continue
		}
		v := r.tree.view(fn)
		if r.takesLock(v, key) && r.rolesOf(v).sleeper() {
			out = append(out, v)
		}
	}
	for i, o := range r.olds {
		if o == nil || o.F == nil || o.Name == f.Name || o.File != f.File || o.Partial {
			continue
		}
		dup := false
		for _, v := range out {
			dup = dup || v.Name == o.Name
		}
		nw := r.news[i]
		if !dup && r.takesLock(o, key) && r.rolesOf(o).sleeper() && nw != nil && !r.takesLock(nw, key) && r.checksThenQueues(nw) != nil {
			out = append(out, o)
		}
	}
	return out
}

// lostLockSleeper returns the new version of sleeper s when s is the old
// version of a function the patch changed (its lock removed too), nil
// otherwise.
func (r *checker) lostLockSleeper(s *wfunc) *wfunc {
	for i, o := range r.olds {
		if o == s {
			return r.news[i]
		}
	}
	return nil
}

// reportCheckThenQueue reports a sleeper that the patch left testing the
// state before it queues itself, without the lock (key, taken by lt in
// the waker's old version) that made the test and the queueing atomic
// against the waker's store and wake-up (dec): the finding belongs to the
// sleeper, whose order is what breaks.
func (r *checker) reportCheckThenQueue(old, nw, sl *wfunc, key, lt, dec string, lockLine int) {
	q := r.checksThenQueues(sl)
	if q == nil {
		return
	}
	f := report.Finding{
		Category: CategoryBarrier,
		Severity: report.SeverityRisk,
		File:     sl.File, Func: sl.Name, Line: q.Line(), Key: q.Q,
		Message:  fmt.Sprintf("%s() tests the state before it queues itself on %s, no longer under %s, which %s() held around its wake-up", sl.Name, q.Q, key, nw.Name),
		Evidence: []string{sl.evidence(q.Line())},
		Old:      []string{old.evidence(lockLine)},
	}
	f.Chain = append(f.Chain, step(q, "queues itself after testing: "+q.Text()))
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: r.newLineNear(old, nw, lockLine), What: "wakes without " + key + ": " + dec + "()"})
	f.Evidence = append(f.Evidence, interleaving(sl.Name+"()", nw.Name+"()", [][2]string{
		{"tests the state: busy", ""},
		{"", "releases the state"},
		{"", dec + "(): nobody queued yet, nobody woken"},
		{"queues itself: " + q.Text(), ""},
		{"sleeps; the release it waits for has passed", ""},
	})...)
	f.Explanation = fmt.Sprintf("Before the patch %s() tested the state and queued itself on %s under %s, and %s() took the same lock (`%s`) around its store and %s(), so no release could fall between the test and the queueing. The patch removes the lock from both sides, and %s() still tests before it queues, with no test after the queueing: a release between the two wakes nobody, and the task then sleeps for a release that already happened. Queue first and test after (prepare_to_wait(), then the test, then schedule()), or keep the lock.",
		sl.Name, q.Q, key, nw.Name, lt, dec, sl.Name)
	r.add(f)
}

// checksThenQueues returns the queueing (prepare_to_wait*(),
// add_wait_queue*()) of f that has no test after it before f sleeps or
// returns: f tested the state first. Without the lock the old version
// held around both, a wake-up between the test and the queueing finds
// nobody. A sleeper that queues first and tests after (an if or a loop
// condition between the queueing and the sleep) is ordered by the
// wake-up's own queue lock, and so is wait_event(), which queues and
// then tests. nil when every queueing is followed by a test.
func (r *checker) checksThenQueues(f *wfunc) *wsite {
	if f == nil || f.F == nil {
		return nil
	}
	sleeps := map[int]bool{}
	for _, c := range r.sleepCalls(f) {
		sleeps[c.Line] = true
	}
	for _, s := range f.Sites {
		if s.Kind != siteWait || s.Q == "" || !(strings.HasPrefix(s.Call.Name, "prepare_to_wait") || strings.HasPrefix(s.Call.Name, "add_wait_queue")) {
			continue
		}
		tested := false
		for l := s.Line() + 1; l <= f.F.End && !tested; l++ {
			t := codeOnly(f.lines[l])
			if sleeps[l] || returnRe.MatchString(t) {
				break
			}
			tested = checkStepRe.MatchString(t)
		}
		if !tested {
			return s
		}
	}
	return nil
}

// returnRe finds a return statement.
var returnRe = regexp.MustCompile(`\breturn\b`)

// checkLockRemoved reports a lock the patch removed from around a wake-up
// decision.
func (r *checker) checkLockRemoved(old, nw *wfunc) {
	if old == nil || nw == nil || old.F == nil || nw.F == nil {
		return
	}
	kept := map[string]bool{}
	for _, c := range nw.F.Calls {
		if k, ok := r.p.lockCall(c); ok && k != "" && nw.changed(c.Line) {
			kept[k] = true
		}
	}
	for i, c := range old.F.Calls {
		key, ok := r.p.lockCall(c)
		if !ok || key == "" || !old.changed(c.Line) {
			continue
		}
		if kept[key] {
			continue
		}
		region := r.lockRegion(old, i)
		dec := r.wakeDecision(old, region)
		if dec == "" || r.queueLockTakenByWake(nw, key) {
			continue
		}
		lt := strings.TrimSpace(old.text(c.Line))
		f := report.Finding{
			Category: CategoryBarrier,
			Severity: report.SeverityNote,
			File:     nw.File, Func: nw.Name, Line: r.newLineNear(old, nw, c.Line),
			Message: fmt.Sprintf("%s() no longer holds %s while it decides whom to wake (%s)", nw.Name, key, dec),
			Old:     []string{old.evidence(c.Line)},
		}
		sleepers := r.lockSleepers(nw, key)
		if len(sleepers) == 0 {
			f.Explanation = fmt.Sprintf("%s used to order %s() against the sleepers that take the same lock; without it the wake-up decision reads state they may be changing. No sleeper taking %s was found in %s.", lt, dec, key, nw.File)
			r.add(f)
			return
		}
		s := sleepers[0]
		if ns := r.lostLockSleeper(s); ns != nil {
			r.reportCheckThenQueue(old, nw, ns, key, lt, dec, c.Line)
			return
		}
		f.Severity = report.SeverityRisk
		f.Chain = append(f.Chain, report.Step{Func: old.Name, File: old.File, Line: c.Line, What: "lock removed: " + lt})
		f.Chain = append(f.Chain, report.Step{Func: s.Name, File: s.File, Line: s.F.Start, What: "sleeps after checking for work under " + key})
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", s.Name+"()", [][2]string{
			{"", "takes " + key + ": finds no work"},
			{"queues the work", "  (not yet marked idle / queued)"},
			{dec + "(): without " + key, ""},
			{"  sees nobody to wake: no wake-up", ""},
			{"", "marks itself idle, drops " + key + ", sleeps"},
			{"", "  the work waits for a wake-up that never comes"},
		})...)
		var names []string
		for _, x := range sleepers {
			names = appendUnique(names, x.Name+"()")
		}
		if len(names) > 3 {
			names = append(names[:3], "...")
		}
		f.Explanation = fmt.Sprintf("%s() used to take %s (`%s`) around %s(), which decides whether and whom to wake. %s take the same lock while they check for work and go to sleep, so the lock made the two steps atomic against each other. Without it the decision can run between a sleeper's check and its going idle, see nobody to wake, and leave the new work with no task to run it. Keep the lock around the decision (or re-check after publishing, with a barrier).",
			nw.Name, key, lt, dec, strings.Join(names, ", "))
		r.add(f)
		return
	}
}

// queueLockTakenByWake reports whether key is the own lock of a queue
// that f now wakes with a primitive taking that lock itself (wake_up(),
// not wake_up_locked()): the wake-up then still runs under it, after the
// stores before it, which is what the sleepers' prepare_to_wait*()
// orders against.
func (r *checker) queueLockTakenByWake(f *wfunc, key string) bool {
	for _, s := range f.Sites {
		if s.Kind == siteWake && !s.Locked && s.Q != "" && queueLockOf(key, []string{s.Q}) {
			return true
		}
	}
	return false
}

// peersOn returns the peers whose function uses one of fields (the
// variables the removed operation ordered): a waker of the same queue for
// another event (an allocator waking cache waiters when buckets free up)
// is no side of this pair. All peers when none does, or fields is empty.
func peersOn(peers []peer, fields []string) []peer {
	if len(fields) == 0 {
		return peers
	}
	var out []peer
	for _, p := range peers {
		if p.wf == nil {
			continue
		}
		uses := false
		for _, t := range p.wf.lines {
			for _, x := range fieldsIn(codeOnly(t)) {
				uses = uses || contains(fields, x)
			}
		}
		if uses {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return peers
	}
	return out
}

// newLockOrdering is lockOrdering for the code that replaces the removed
// operation at old line: a patch that trades a cmpxchg() for a lock both
// sides now take (the replacement's changed lines in the same change
// block hold it, and every peer takes it) keeps the pair ordered.
func (r *checker) newLockOrdering(old, nw *wfunc, line int, queues []string, peers []peer) string {
	b := r.blockOf(old, line)
	if b == 0 {
		return ""
	}
	var lines []int
	for l := range nw.lines {
		if nw.changed(l) && r.blockOf(nw, l) == b {
			lines = append(lines, l)
		}
	}
	sort.Ints(lines)
	for _, l := range lines {
		if by := r.lockOrdering(nw, l, queues, peers); by != "" {
			return by
		}
	}
	return ""
}

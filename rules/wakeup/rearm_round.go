package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// The re-arm of a completion belongs at the start of each round (re-arm,
// start the operation, wait), inside whatever serialises the rounds, and
// must not re-initialise the queue under a waiter (rearm_completion.go has the
// re-arm moved past the start and the re-arm removed):
//   - moved after the wait, the re-arm closes the round instead of opening
//     the next: a complete() that comes after it (the late answer to a
//     timed-out wait, a stray interrupt) is still there when the next
//     round waits, and that wait returns at once;
//   - moved out of the lock held across the round, one user's re-arm can
//     erase the complete() another user's round is waiting for;
//   - init_completion() in place of reinit_completion() re-initialises the
//     wait queue too: a task already waiting is lost from it.

// waitBefore returns the last wait on q in f before line, nil if none.
func (r *checker) waitBefore(f *wfunc, q string, line int) *wsite {
	var out *wsite
	for _, s := range f.sitesOn(siteWait, "") {
		if s.Line() < line && r.sameQueue(s.Q, q) && (out == nil || s.Line() > out.Line()) {
			out = s
		}
	}
	return out
}

// rearmAfterWait reports a re-arm moved from before the wait to after it.
func (r *checker) rearmAfterWait(ow, nw *wfunc, o, n rearmSite) bool {
	if r.waitIn(ow, o.q, o.call.Line) == nil || r.waitIn(nw, n.q, n.call.Line) != nil {
		return false
	}
	w := r.waitBefore(nw, n.q, n.call.Line)
	if w == nil {
		return false
	}
	done := r.completer(nw, n.q)
	if done == nil {
		return false
	}
	q := strings.TrimPrefix(n.q, "completion:")
	f := report.Finding{
		Category: CategoryRearm,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: n.call.Line,
		Message:  fmt.Sprintf("%s() now re-arms %s after waiting on it instead of before the next round", nw.Name, q),
		Evidence: []string{nw.evidence(w.Line()), nw.evidence(n.call.Line)},
		Old:      []string{ow.evidence(o.call.Line)},
	}
	f.Chain = append(f.Chain,
		step(w, "waits: "+w.Text()),
		report.Step{Func: nw.Name, File: nw.File, Line: n.call.Line, What: "re-arms only after the wait: " + lockctx.CallText(n.call)},
		step(done, "completes it: "+done.Text()))
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", done.Fn.Name+"()", [][2]string{
		{w.Text() + " (returns: timeout, signal or done)", ""},
		{lockctx.CallText(n.call), ""},
		{"", done.Text() + " (late, or stray)"},
		{"next round: starts the operation", ""},
		{w.Text(), ""},
		{"  returns at once: done from the last round", ""},
	})...)
	f.Explanation = fmt.Sprintf("%s() used to re-arm %s before the operation it waits for and now re-arms it after the wait. A complete() that arrives after that point (%s answering late, after a timeout or a signal) leaves the completion done for the next round, whose wait then returns before its own operation finished. Re-arm at the start of each round, before starting the operation.",
		nw.Name, q, siteWhere(done))
	r.add(f)
	return true
}

// rearmUnlocked reports a re-arm moved out of a lock that the old re-arm
// and the wait are both under: the lock serialises rounds of several
// users, and the re-arm now runs outside it.
func (r *checker) rearmUnlocked(ow, nw *wfunc, o, n rearmSite) bool {
	ow1 := r.waitIn(ow, o.q, o.call.Line)
	nw1 := r.waitIn(nw, n.q, n.call.Line)
	if ow1 == nil || nw1 == nil {
		return false
	}
	held := r.locksAt(nw, n.call.Line)
	for _, h := range r.locksAt(ow, o.call.Line) {
		if !heldAt(r.locksAt(ow, ow1.line), h.key) || !heldAt(r.locksAt(nw, nw1.line), h.key) {
			continue
		}
		if heldAt(held, h.key) && !r.releasedBefore(nw, h.key, n.call.Line) {
			continue
		}
		q := strings.TrimPrefix(n.q, "completion:")
		f := report.Finding{
			Category: CategoryRearm,
			Severity: report.SeverityRisk,
			File:     nw.File, Func: nw.Name, Line: n.call.Line,
			Message:  fmt.Sprintf("%s() now re-arms %s outside %s, which still serialises the wait", nw.Name, q, h.text),
			Evidence: []string{nw.evidence(n.call.Line), nw.evidence(nw1.line)},
			Old:      []string{ow.evidence(h.line), ow.evidence(o.call.Line)},
		}
		f.Chain = append(f.Chain,
			report.Step{Func: nw.Name, File: nw.File, Line: n.call.Line, What: "re-arms without the lock: " + lockctx.CallText(n.call)},
			r.waitStep(nw, nw1))
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"() (user A)", nw.Name+"() (user B)", [][2]string{
			{"", h.text + "; starts its operation"},
			{"", r.waitText(nw1)},
			{"", "  (its operation completes)"},
			{lockctx.CallText(n.call), ""},
			{"  (B's completion is erased)", "  waits on, or times out"},
		})...)
		f.Explanation = fmt.Sprintf("%s() used to re-arm %s under `%s`, which it still holds across the operation and the wait, so one user's round could not overlap another's. The re-arm now runs outside that lock: a second caller can re-arm while the first waits, erasing the complete() that first caller is waiting for. Re-arm inside the lock, as before.",
			nw.Name, q, h.text)
		r.add(f)
		return true
	}
	return false
}

// rearmReinitialised reports reinit_completion() replaced by
// init_completion() when the completion has waiters elsewhere.
func (r *checker) rearmReinitialised(ow, nw *wfunc, o, n rearmSite) bool {
	if o.call.Name != "reinit_completion" || n.call.Name != "init_completion" {
		return false
	}
	waiters := r.otherWaiters(n.q, nw.Name)
	if len(waiters) == 0 {
		return false
	}
	w := waiters[0]
	q := strings.TrimPrefix(n.q, "completion:")
	f := report.Finding{
		Category: CategoryRearm,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: n.call.Line,
		Message:  fmt.Sprintf("%s() now re-initialises %s with init_completion() while %s() may wait on it", nw.Name, q, w.Fn.Name),
		Evidence: []string{nw.evidence(n.call.Line)},
		Old:      []string{ow.evidence(o.call.Line)},
	}
	f.Chain = append(f.Chain,
		step(w, "waits: "+w.Text()),
		report.Step{Func: nw.Name, File: nw.File, Line: n.call.Line, What: "re-initialises the queue: " + lockctx.CallText(n.call)})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{"", w.Text() + " (queued on the completion's wait queue)"},
		{lockctx.CallText(n.call), ""},
		{"  (the wait queue is re-initialised: the waiter is dropped)", ""},
		{"complete()", "  never woken"},
	})...)
	f.Explanation = fmt.Sprintf("init_completion() re-initialises the completion's wait queue as well as its count; reinit_completion() only resets the count. %s waits on %s, and a waiter already queued is lost when the queue is re-initialised under it (and the list it sits on is corrupted). Keep reinit_completion() for a completion in use.",
		siteWhere(w), q)
	r.add(f)
	return true
}

package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// Wakers compared before and after (rules 2 and 3): each wake-up paired
// with its old version (breadth, sync, task-state mode), waits whose
// sleeping state changed against their wakers, and wake-ups removed.

// checkWakers compares the wakers of every touched function (rules 2 and
// 3) and returns the new-side wakers the patch added or changed, by queue.
func (r *checker) checkWakers() map[string][]*wsite {
	changed := map[string][]*wsite{}
	// New-side wakers added anywhere, to recognise a wake-up moved to
	// another function.
	addedAnywhere := map[string]bool{}
	for _, nw := range r.news {
		if nw == nil {
			continue
		}
		for _, s := range nw.Sites {
			if (s.Kind == siteWake || s.Kind == siteDeepWake) && s.Changed() {
				addedAnywhere[s.Q] = true
			}
		}
	}
	for i, fc := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		used := map[*wsite]bool{}
		if nw != nil {
			for _, n := range nw.sitesOn(siteWake, "") {
				o := r.counterpart(old, n, used)
				if o != nil {
					used[o] = true
				}
				if n.Changed() || (o != nil && o.Changed()) {
					changed[n.Q] = append(changed[n.Q], n)
				}
				if o == nil {
					if n.Changed() {
						r.checkAddedMode(r.oldVersion(i), nw, n)
					}
					continue
				}
				r.compareWakers(o, n)
				r.checkWakeTarget(o, n)
				r.checkConditional(old, nw, o, n)
				r.checkOtherQueueGate(old, nw, o, n)
				r.checkCheckBeforeBarrier(old, nw, o, n)
				r.checkQueueIndex(o, n)
				r.checkWakeMovedEarlier(old, nw, o, n)
			}
			// A helper that wakes only when it sees sleepers still wakes
			// one object's queue: moved to another object, it leaves the
			// first one's sleepers.
			gused := map[*wsite]bool{}
			for _, n := range nw.sitesOn(siteGatedWake, "") {
				if o := r.counterpart(old, n, gused); o != nil {
					gused[o] = true
					r.checkWakeTarget(o, n)
					r.checkOtherQueueGate(old, nw, o, n)
				}
			}
			// A deep waker's call is owed as a wake-up is: a new exit or
			// condition before it skips its waiters' wake-up.
			dused := map[*wsite]bool{}
			for _, n := range nw.sitesOn(siteDeepWake, "") {
				if o := r.counterpart(old, n, dused); o != nil {
					dused[o] = true
					used[o] = true
					r.deepCall = n
					r.checkConditional(old, nw, o, n)
					r.deepCall = nil
				}
			}
			// Waits whose task state changed.
			wused := map[*wsite]bool{}
			for _, n := range nw.sitesOn(siteWait, "") {
				if !n.Changed() && !spanChanged(n) {
					continue
				}
				if o := r.counterpart(old, n, wused); o != nil {
					wused[o] = true
					if n.Changed() {
						r.compareWaitState(o, n)
					}
					r.checkCondDropped(o, n)
				}
			}
			if old != nil {
				r.checkPollCondDropped(old, nw)
				r.checkBranchLost(old, nw)
			}
		}
		if old == nil || fc.Deleted || nw == nil {
			continue
		}
		for _, o := range old.Sites {
			if o.Kind != siteWake && o.Kind != siteDeepWake || used[o] || !o.Changed() {
				continue
			}
			moved := addedAnywhere[o.Q]
			for _, n := range r.renames[o.Q] {
				moved = moved || addedAnywhere[n]
			}
			if moved {
				continue
			}
			f := report.Finding{
				Category: CategoryRemoved,
				Severity: report.SeverityNote,
				File:     o.Fn.File, Func: o.Fn.Name, Line: o.Line(), Key: o.Q,
				Message: fmt.Sprintf("wake-up of %s removed from %s()", o.Q, o.Fn.Name),
				Explanation: fmt.Sprintf("%s() no longer calls %s on %s. Check that every waiter of %s is still woken on this path "+
					"(by another waker or because the condition cannot change here).", o.Fn.Name, o.Call.Name, o.Q, o.Q),
				Old: []string{o.Fn.evidence(o.Line())},
			}
			r.decideRemoved(&f, o, nw)
			if o.Kind == siteDeepWake {
				r.deepCall = o
			}
			r.add(f)
			r.deepCall = nil
		}
	}
	return changed
}

// compareWakers reports breadth, sync and mode changes between a waker and
// its new version.
func (r *checker) compareWakers(o, n *wsite) {
	if !o.Changed() && !n.Changed() {
		return
	}
	base := report.Finding{
		Severity: report.SeverityNote,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Evidence: []string{n.Fn.evidence(n.Line())},
		Old:      []string{o.Fn.evidence(o.Line())},
	}
	switch ob, nb := breadthRank(o.Breadth), breadthRank(n.Breadth); {
	case nb < ob:
		f := base
		f.Category = CategoryNarrowed
		f.Message = fmt.Sprintf("wake-up of %s narrowed: %s -> %s", n.Q, o.Call.Name, n.Call.Name)
		f.Explanation = fmt.Sprintf("%s %s; it used to wake %s. Exclusive waiters of %s that are not woken must be woken by someone else.",
			n.Call.Name, describeBreadth(n), strings.TrimPrefix(describeBreadth(o), "wakes "), n.Q)
		if n.WKind == "completion" {
			f.Explanation = fmt.Sprintf("%s wakes one waiter of the completion; %s woke all of them and left it completed for later waiters. "+
				"Every waiter must get its own complete().", n.Call.Name, o.Call.Name)
			r.riskOneShot(&f, o, n)
		} else if ok, why := teardownNarrowed(o, n); ok {
			r.riskTeardown(&f, o, n, why)
		} else if b := r.broadcastOf(n); b != nil && r.tree == nil {
			f.NeedsTree = true
			f.Explanation += fmt.Sprintf(" This wake-up runs on a broadcast path (%s): if %s has exclusive waiters outside the patch, only one of them is woken "+
				"and the others can hang. The bot saw only the patch, not the other users of %s in the tree: please check that no "+
				"exclusive waiter (wait_event_*_exclusive(), prepare_to_wait_exclusive(), add_wait_queue_exclusive()) sleeps on %s, "+
				"or that each one is woken on another path.", strings.Join(b.reasons, "; "), n.Q, n.Q, n.Q)
		}
		r.add(f)
	case nb > ob:
		f := base
		f.Category = CategoryWidened
		f.Message = fmt.Sprintf("wake-up of %s widened: %s -> %s", n.Q, o.Call.Name, n.Call.Name)
		f.Explanation = fmt.Sprintf("%s %s (it used to wake %s): correct, but possibly a thundering herd.",
			n.Call.Name, describeBreadth(n), strings.TrimPrefix(describeBreadth(o), "wakes "))
		r.add(f)
	}
	r.checkPollKey(o, n)
	if o.Sync != n.Sync {
		f := base
		f.Category = CategorySync
		if n.Sync {
			f.Message = fmt.Sprintf("wake-up of %s is now sync (%s -> %s)", n.Q, o.Call.Name, n.Call.Name)
			f.Explanation = "A sync wake-up tells the scheduler the waker is about to sleep, so the woken task may be kept on this CPU; " +
				"right only if the waker really blocks next. Scheduling/latency change, not a correctness one."
		} else {
			f.Message = fmt.Sprintf("wake-up of %s is no longer sync (%s -> %s)", n.Q, o.Call.Name, n.Call.Name)
			f.Explanation = "The waker no longer hints that it is about to sleep; the woken task may be migrated to another CPU. " +
				"Scheduling/latency change, not a correctness one."
		}
		r.add(f)
	}
	if o.Mode != n.Mode && o.Mode != "" && n.Mode != "" {
		f := base
		f.Category = CategoryMode
		if n.Mode == "interruptible" {
			f.Message = fmt.Sprintf("wake-up of %s now wakes only interruptible sleepers (%s -> %s)", n.Q, o.Call.Name, n.Call.Name)
			f.Explanation = fmt.Sprintf("%s skips tasks sleeping in TASK_UNINTERRUPTIBLE, TASK_KILLABLE or TASK_IDLE.", n.Call.Name)
			if ws := r.uninterruptibleWaiters(n.Q); len(ws) > 0 {
				f.Severity = report.SeverityRisk
				f.Explanation += fmt.Sprintf(" %s has such waiters, which this wake-up no longer wakes: they can hang. Keep a TASK_NORMAL wake-up (wake_up*() without _interruptible).", n.Q)
				for _, w := range ws {
					f.Chain = append(f.Chain, step(w, fmt.Sprintf("sleeps %s: %s", w.State, w.Text())))
				}
				f.Chain = append(f.Chain, step(n, "wakes only TASK_INTERRUPTIBLE sleepers: "+n.Text()))
			}
		} else {
			f.Message = fmt.Sprintf("wake-up of %s now wakes uninterruptible sleepers too (%s -> %s)", n.Q, o.Call.Name, n.Call.Name)
			f.Explanation = "TASK_NORMAL wake-ups also wake TASK_UNINTERRUPTIBLE sleepers: correct, possibly more wake-ups."
		}
		r.add(f)
	}
}

// uninterruptibleWaiters returns the waiters of q (new side and tree) that
// sleep in a state an interruptible-only wake-up does not wake.
func (r *checker) uninterruptibleWaiters(q string) []*wsite {
	var out []*wsite
	for _, s := range r.waitersOf(q) {
		if s.WKind == "poll" {
			continue
		}
		switch s.State {
		case "uninterruptible", "killable", "idle":
			out = append(out, s)
		}
	}
	return out
}

// checkAddedMode reports a wake-up the patch added that wakes only
// interruptible sleepers of a queue whose every sleeper sleeps in another
// state, after a store to a member their conditions read: it wakes
// nobody, and the event it announces is lost unless another wake-up of
// the function serves them. It needs the tree (every sleeper), and a
// queue with pollers is theirs to wake (poll_wait() sleeps
// interruptibly). old is the function's version before the patch,
// possibly in another file: a wake-up it made the same way is not new.
func (r *checker) checkAddedMode(old, nw *wfunc, n *wsite) {
	if r.tree == nil || n.Mode != "interruptible" || n.WKind == "completion" {
		return
	}
	if old != nil {
		for _, o := range old.sitesOn(siteWake, n.Q) {
			if o.Call.Name == n.Call.Name {
				return
			}
		}
	}
	for _, w := range nw.sitesOn(siteWake, n.Q) {
		if w.Mode != "interruptible" {
			return
		}
	}
	all := r.waitersOf(n.Q)
	for _, s := range all {
		if s.WKind == "poll" {
			return
		}
	}
	ws := r.uninterruptibleWaiters(n.Q)
	if len(ws) == 0 || len(ws) != len(all) || storeThrough(nw, n.Line(), wakeObject(n.Arg), condFields(ws)) == "" {
		return
	}
	f := report.Finding{
		Category: CategoryMode,
		Severity: report.SeverityRisk,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Message: fmt.Sprintf("new %s() of %s wakes only interruptible sleepers, and every sleeper of it sleeps %s", n.Call.Name, n.Q, ws[0].State),
		Explanation: fmt.Sprintf("%s() wakes only tasks in TASK_INTERRUPTIBLE; the sleepers of %s sleep in TASK_UNINTERRUPTIBLE, TASK_KILLABLE or TASK_IDLE, so the wake-up the patch adds wakes none of them and they sleep on after the event it announces. Use a TASK_NORMAL wake-up (wake_up*() without _interruptible).",
			n.Call.Name, n.Q),
		Evidence: []string{n.Fn.evidence(n.Line())},
	}
	for _, w := range ws {
		f.Chain = append(f.Chain, step(w, fmt.Sprintf("sleeps %s: %s", w.State, w.Text())))
	}
	f.Chain = append(f.Chain, step(n, "wakes only TASK_INTERRUPTIBLE sleepers: "+n.Text()))
	r.add(f)
}

// compareWaitState reports a waiter that now sleeps uninterruptibly on a
// queue whose wakers only wake interruptible sleepers.
func (r *checker) compareWaitState(o, n *wsite) {
	if o.State == n.State || n.WKind == "poll" || o.WKind == "poll" {
		return
	}
	if n.State == "interruptible" {
		return
	}
	wakers := r.wakersOf(n.Q)
	if len(wakers) == 0 {
		return
	}
	for _, w := range wakers {
		if w.Mode != "interruptible" {
			return
		}
	}
	f := report.Finding{
		Category: CategoryMode,
		Severity: report.SeverityRisk,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Message: fmt.Sprintf("%s() now sleeps %s on %s, but every waker of it wakes only interruptible sleepers", n.Fn.Name, n.State, n.Q),
		Explanation: fmt.Sprintf("wake_up_interruptible*() does not wake a task sleeping in %s. Use TASK_NORMAL wake-ups (wake_up*()) for %s, or keep the interruptible sleep.",
			n.State, n.Q),
		Evidence: []string{n.Fn.evidence(n.Line())},
		Old:      []string{o.Fn.evidence(o.Line())},
	}
	f.Chain = append(f.Chain, step(n, "sleeps "+n.State+": "+n.Text()))
	for _, w := range wakers {
		f.Chain = append(f.Chain, step(w, "wakes interruptible sleepers only: "+w.Text()))
	}
	r.add(f)
}

package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// isQueueWait reports whether a wait site sleeps on (or queues on) a wait
// queue proper, not a completion, variable or poll table.
func isQueueWait(s *wsite) bool {
	return s.Kind == siteWait && (s.WKind == "wait" || s.WKind == "add")
}

// checkExclusive reports exclusive waiting introduced or removed (rule 1)
// and returns the introduced exclusive waiters by queue.
func (r *checker) checkExclusive() map[string][]*wsite {
	introduced := map[string][]*wsite{}
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		oldExcl := map[string]bool{}
		if old != nil {
			for _, s := range old.Sites {
				if isQueueWait(s) && s.Exclusive {
					oldExcl[s.Q] = true
					for _, n := range r.renames[s.Q] {
						oldExcl[n] = true
					}
				}
			}
		}
		if nw != nil {
			for _, s := range nw.Sites {
				if !isQueueWait(s) || !s.Exclusive || oldExcl[s.Q] {
					continue
				}
				introduced[s.Q] = append(introduced[s.Q], s)
				var oldLines []string
				for _, o := range r.oldPeers(old, s) {
					oldLines = append(oldLines, o.Fn.evidence(o.Line()))
				}
				r.add(report.Finding{
					Category: CategoryExclusive,
					Severity: report.SeverityNote,
					File:     s.Fn.File, Func: s.Fn.Name, Line: s.Line(), Key: s.Q,
					Message: fmt.Sprintf("%s() now waits exclusively on %s (%s)", s.Fn.Name, s.Q, s.Call.Name),
					Explanation: fmt.Sprintf("An exclusive waiter is woken one at a time: wake_up()-style calls on %s now wake only one such waiter. "+
						"Every waker of %s that makes the condition true for all waiters (release, hang-up, error, shutdown) must use a *_all wake-up, "+
						"or the woken waiter must pass the wake-up on.", s.Q, s.Q),
					Evidence: []string{s.Fn.evidence(s.Line())},
					Old:      oldLines,
				})
			}
		}
		if old != nil {
			newExcl := map[string]bool{}
			if nw != nil {
				for _, s := range nw.Sites {
					if isQueueWait(s) && s.Exclusive {
						newExcl[s.Q] = true
					}
				}
			}
			for _, s := range old.Sites {
				if !isQueueWait(s) || !s.Exclusive || !s.Changed() {
					continue
				}
				still := newExcl[s.Q]
				for _, n := range r.renames[s.Q] {
					still = still || newExcl[n]
				}
				if still || nw == nil {
					continue
				}
				r.add(report.Finding{
					Category: CategoryExclusive,
					Severity: report.SeverityNote,
					File:     s.Fn.File, Func: s.Fn.Name, Line: s.Line(), Key: s.Q,
					Message: fmt.Sprintf("%s() no longer waits exclusively on %s", s.Fn.Name, s.Q),
					Explanation: "Non-exclusive waiters are all woken by every wake-up (thundering herd); " +
						"check that this is intended and that no waker relies on waking a single waiter.",
					Old: []string{s.Fn.evidence(s.Line())},
				})
			}
		}
	}
	return introduced
}

// oldPeers returns the old-side waits in the same change block as the
// new-side site n.
func (r *checker) oldPeers(old *wfunc, n *wsite) []*wsite {
	if old == nil {
		return nil
	}
	b := r.blockOf(n.Fn, n.Line())
	var out []*wsite
	for _, o := range old.Sites {
		if o.Kind == n.Kind && o.Changed() && b != 0 && r.blockOf(old, o.Line()) == b {
			out = append(out, o)
		}
	}
	return out
}

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
		for _, s := range nw.sitesOn(siteWake, "") {
			if s.Changed() {
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
					continue
				}
				r.compareWakers(o, n)
				r.checkConditional(old, nw, o, n)
				r.checkCheckBeforeBarrier(old, nw, o, n)
				r.checkQueueIndex(o, n)
				r.checkWakeMovedEarlier(old, nw, o, n)
			}
			// Waits whose task state changed.
			wused := map[*wsite]bool{}
			for _, n := range nw.sitesOn(siteWait, "") {
				if !n.Changed() {
					continue
				}
				if o := r.counterpart(old, n, wused); o != nil {
					wused[o] = true
					r.compareWaitState(o, n)
				}
			}
		}
		if old == nil || fc.Deleted || nw == nil {
			continue
		}
		for _, o := range old.sitesOn(siteWake, "") {
			if used[o] || !o.Changed() {
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
			r.add(f)
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

// checkEntries compares wait-entry set-up (rule 4).
func (r *checker) checkEntries() {
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		if nw == nil {
			continue
		}
		// Set-up changes, paired by entry name, then in order.
		var oldE, newE []*wsite
		if old != nil {
			oldE = old.sitesOn(siteEntry, "")
		}
		newE = nw.sitesOn(siteEntry, "")
		used := map[*wsite]bool{}
		pair := func(n *wsite) *wsite {
			for _, o := range oldE {
				if !used[o] && o.Entry == n.Entry {
					return o
				}
			}
			for _, o := range oldE {
				if !used[o] && o.Changed() {
					return o
				}
			}
			return nil
		}
		for _, n := range newE {
			o := pair(n)
			if o == nil {
				continue
			}
			used[o] = true
			if n.Autoremove == nil || o.Autoremove == nil || *n.Autoremove == *o.Autoremove {
				continue
			}
			f := report.Finding{
				Category: CategoryWaitEntry,
				Severity: report.SeverityNote,
				File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: r.entryQueue(nw, n.Entry),
				Evidence: []string{nw.evidence(n.Line())},
				Old:      []string{o.Fn.evidence(o.Line())},
			}
			if *n.Autoremove {
				f.Message = fmt.Sprintf("wait entry %s now auto-removed on wakeup (%s)", n.Entry, n.Call.Name)
				f.Explanation = fmt.Sprintf("%s uses autoremove_wake_function: a wake-up takes the entry off the queue, so the next wake-up goes to the next waiter "+
					"instead of hitting this entry again. The sleeper must not rely on still being queued after a wake-up "+
					"(re-add it before sleeping again) and must still remove it (finish_wait/list_empty_careful check) when it stops waiting without a wake-up.", n.Call.Name)
			} else {
				f.Message = fmt.Sprintf("wait entry %s no longer auto-removed on wakeup (%s)", n.Entry, n.Call.Name)
				f.Explanation = "The entry now stays queued after a wake-up until the sleeper removes it; with exclusive queueing a second wake-up " +
					"can hit the same, already-woken entry and be lost for the other waiters."
			}
			r.add(f)
		}
		// A non-auto-removing entry queued exclusively.
		for _, s := range nw.Sites {
			if !isQueueWait(s) || !s.Exclusive || s.Entry == "" {
				continue
			}
			for _, e := range newE {
				if e.Entry != s.Entry || e.Autoremove == nil || *e.Autoremove {
					continue
				}
				if !s.Changed() && !e.Changed() {
					continue
				}
				f := report.Finding{
					Category: CategoryWaitEntry,
					Severity: report.SeverityNote,
					File:     s.Fn.File, Func: s.Fn.Name, Line: s.Line(), Key: s.Q,
					Message: fmt.Sprintf("non-auto-removing wait entry %s queued exclusively on %s", s.Entry, s.Q),
					Explanation: fmt.Sprintf("%s leaves the entry on %s after it is woken, and %s makes it exclusive: until the sleeper removes it, "+
						"further single wake-ups can hit this already-woken entry instead of the next waiter and be lost (the epoll lost-wakeup pattern). "+
						"Use init_wait()/DEFINE_WAIT() (autoremove_wake_function) or wake all waiters.", e.Call.Name, s.Q, s.Call.Name),
					Evidence: []string{nw.evidence(e.Line()), nw.evidence(s.Line())},
				}
				r.decideStaleEntry(&f, s, e)
				r.add(f)
			}
		}
		r.checkFinishWait(old, nw)
	}
}

// entryQueue returns the queue an entry is added to in f, "" if unknown.
func (r *checker) entryQueue(f *wfunc, entry string) string {
	for _, s := range f.Sites {
		if s.Kind == siteWait && s.Entry == entry {
			return s.Q
		}
	}
	return ""
}

// checkFinishWait reports a wait entry queued by prepare_to_wait*() (or,
// when the entry is the function's own, add_wait_queue*()) that is not
// removed on some path to a return (rule 4): the path is followed
// through goto labels (exits.go), not by source order alone.
func (r *checker) checkFinishWait(old, nw *wfunc) {
	if nw.F == nil || nw.F.Body == nil {
		return
	}
	fl := flowOf(nw)
	for _, p := range nw.Sites {
		if p.Kind != siteWait || p.WKind != "add" || p.Entry == "" {
			continue
		}
		prepare := strings.HasPrefix(p.Call.Name, "prepare_to_")
		if !prepare && !localEntry(nw, p.Entry) {
			continue // an entry that outlives the function is removed elsewhere
		}
		// The patch removed a removal of this entry.
		removedRemoval := false
		if old != nil {
			for _, s := range old.Sites {
				if s.Kind == siteRemove && s.Entry == p.Entry && s.Changed() {
					removedRemoval = true
				}
			}
		}
		var removals []int
		for _, s := range nw.Sites {
			if s.Kind == siteRemove && s.Entry == p.Entry && s.Line() > p.Line() {
				removals = append(removals, s.Line())
			}
		}
		for _, e := range fl.jumps {
			if !e.ret || e.line <= p.Line() {
				continue
			}
			ok, via := fl.passes(removals, p.Line(), e)
			if ok || (!p.Changed() && !nw.changed(e.line) && !nw.changed(via) && !removedRemoval) {
				continue
			}
			r.reportFinishWait(nw, p, e.line, prepare)
			break
		}
	}
}

// localEntryRe matches the declaration of a wait entry on the stack.
var localEntryRe = regexp.MustCompile(`\b(?:DECLARE_WAITQUEUE|DEFINE_WAIT|DEFINE_WAIT_FUNC|DEFINE_WAIT_BIT)\s*\(\s*(\w+)|\b(?:wait_queue_entry_t|struct\s+wait_queue_entry)\s+(\w+)\s*[;=]`)

// localEntry reports whether f declares the wait entry itself (on its
// stack): it must be off the queue before f returns.
func localEntry(f *wfunc, entry string) bool {
	for _, t := range f.lines {
		for _, m := range localEntryRe.FindAllStringSubmatch(t, -1) {
			if m[1] == entry || m[2] == entry {
				return true
			}
		}
	}
	return false
}

// reportFinishWait reports the exit at line that leaves p's entry queued.
func (r *checker) reportFinishWait(nw *wfunc, p *wsite, line int, prepare bool) {
	sev := report.SeverityRisk
	if nw.Partial {
		sev = report.SeverityNote
	}
	remove, what := "finish_wait", "queues %s and sets the task state"
	if !prepare {
		remove, what = "remove_wait_queue", "queues the on-stack entry %s"
	}
	r.add(report.Finding{
		Category: CategoryWaitEntry,
		Severity: sev,
		File:     nw.File, Func: nw.Name, Line: line, Key: p.Q,
		Message: fmt.Sprintf("%s() can leave after %s without %s() on %s", nw.Name, p.Call.Name, remove, p.Entry),
		Explanation: fmt.Sprintf("%s "+what+"; the path leaving at line %d does not remove the entry, "+
			"so a stack entry stays on %s after the function returns (use-after-return on the next wake-up), and the task may return in a sleeping state. Call %s(%s, &%s) on that path.",
			p.Call.Name, p.Entry, line, p.Q, remove, p.Arg, p.Entry),
		Evidence: append([]string{nw.evidence(p.Line()), nw.evidence(line)}, interleaving(nw.Name+"()", "a waker of "+p.Q, [][2]string{
			{strings.TrimSpace(nw.text(p.Line())), ""},
			{"leaves on the path to line " + fmt.Sprint(line), ""},
			{"returns: " + p.Entry + " still queued", ""},
			{"", "wake_up(" + p.Arg + "): walks the entry"},
			{"", "  on the dead stack frame"},
		})...),
	})
}

// checkActive reports waitqueue_active() checks added without a barrier or
// the queue lock (rule 6).
func (r *checker) checkActive() {
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		if nw == nil {
			continue
		}
		used := map[*wsite]bool{}
		done := r.checkGating(old, nw)
		for _, a := range nw.sitesOn(siteActive, "") {
			if done[a] || a.BuiltinBarrier || !a.Changed() {
				continue
			}
			if o := r.counterpart(old, a, used); o != nil {
				used[o] = true
				if !o.BuiltinBarrier {
					continue // the check was already there
				}
			}
			if r.barrierBefore(nw, a) || r.impliedBarrierBefore(nw, a) {
				continue
			}
			expl := fmt.Sprintf("waitqueue_active() reads %s without its lock. Unless a full barrier (smp_mb()) separates the store that makes the "+
				"wait condition true from this check (pairing with the barrier in set_current_state()/prepare_to_wait()), the waker can miss a waiter "+
				"that is just going to sleep and the wake-up is lost. Use wq_has_sleeper(), add smp_mb(), or call wake_up() unconditionally.", a.Q)
			if nw.Partial {
				expl += " (Only the hunks were visible: a barrier earlier in the function would not be seen.)"
			}
			r.add(report.Finding{
				Category: CategoryActive,
				Severity: report.SeverityNote,
				File:     nw.File, Func: nw.Name, Line: a.Line(), Key: a.Q,
				Message:     fmt.Sprintf("%s(%s) added without a memory barrier or the queue lock", a.Call.Name, a.Arg),
				Explanation: expl,
				Evidence:    []string{nw.evidence(a.Line())},
			})
		}
	}
}

// barrierBefore reports whether a barrier call or the queue's lock precedes
// the active check a in source order.
func (r *checker) barrierBefore(f *wfunc, a *wsite) bool {
	held := 0
	for _, s := range f.Sites {
		if s.Line() > a.Line() || (s.Line() == a.Line() && s == a) {
			break
		}
		switch s.Kind {
		case siteBarrier:
			return true
		case siteLock:
			if s.Q == a.Q {
				held++
			}
		case siteUnlock:
			if s.Q == a.Q && held > 0 {
				held--
			}
		}
	}
	return held > 0
}

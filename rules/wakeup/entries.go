package wakeup

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/report"
)

// Wait-entry set-up (rule 4): entries that became or stopped being
// auto-removed on wake-up, and non-auto-removing entries queued
// exclusively. finishwait.go has the removal of the entry on every exit.

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
			if n.Autoremove == nil || o.Autoremove == nil || *n.Autoremove == *o.Autoremove || r.flagWaitServed(nw, n) {
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
		r.checkWakeQFlush(old, nw)
		r.checkFlagWaits(old, nw)
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

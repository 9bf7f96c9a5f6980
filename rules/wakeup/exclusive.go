package wakeup

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/report"
)

// Exclusive waiting (rule 1): waits that became exclusive or stopped
// being exclusive, and which waits are on a wait queue proper.

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

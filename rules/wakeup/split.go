package wakeup

import (
	"fmt"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// queueUse reports whether a site uses a queue (as opposed to entries and
// barriers).
func queueUse(s *wsite) bool {
	switch s.Kind {
	case siteWait, siteWake, siteActive, siteRemove, siteLock, siteUnlock:
		return s.Q != ""
	}
	return false
}

// findRenames works out which queues the patch renamed or split: from
// struct definitions in the patch, and from users whose old-side queue no
// longer appears on any new side while the same change block uses a queue
// that did not exist before.
func (r *checker) findRenames() {
	oldKeys, newKeys := map[string]bool{}, map[string]bool{}
	for _, f := range r.olds {
		if f != nil {
			for _, s := range f.Sites {
				if queueUse(s) {
					oldKeys[s.Q] = true
				}
			}
		}
	}
	for _, f := range r.news {
		if f != nil {
			for _, s := range f.Sites {
				if queueUse(s) {
					newKeys[s.Q] = true
				}
			}
		}
	}
	for k, v := range r.structRenames {
		r.renames[k] = append([]string(nil), v...)
	}
	for i, old := range r.olds {
		nw := r.news[i]
		if old == nil || nw == nil {
			continue
		}
		for _, o := range old.Sites {
			if !queueUse(o) || !o.Changed() || newKeys[o.Q] {
				continue
			}
			b := r.blockOf(old, o.Line())
			if b == 0 {
				continue
			}
			for _, n := range nw.Sites {
				if n.Kind == o.Kind && queueUse(n) && !oldKeys[n.Q] && n.Changed() && r.blockOf(nw, n.Line()) == b {
					r.renames[o.Q] = appendUnique(r.renames[o.Q], n.Q)
				}
			}
		}
	}
	// A struct rename names the targets; drop usage-only targets that are
	// not struct fields of the same rename when both exist.
	for k := range r.renames {
		sort.Strings(r.renames[k])
	}
}

// checkSplit reports each renamed or split queue with every user of the
// old queue in the patch (and tree), where it moved, and users left behind
// (rule 5).
func (r *checker) checkSplit() {
	keys := make([]string, 0, len(r.renames))
	for k := range r.renames {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, g := range keys {
		r.reportSplit(g)
	}
}

// splitUsers are the users of a renamed or split queue: the patch's
// users of the old queue, moved or removed, and the users left on it.
type splitUsers struct {
	moved, removed, behind                    []string
	movedWaiters, behindWakers, behindWaiters int
	first                                     *wsite
	treeBehind                                []*wsite
}

// splitMoves finds where the patch's users of queue g went.
func (r *checker) splitMoves(g string, targets []string, u *splitUsers) {
	for i, old := range r.olds {
		if old == nil {
			continue
		}
		nw := r.news[i]
		used := map[*wsite]bool{}
		for _, o := range old.Sites {
			if !queueUse(o) || o.Q != g {
				continue
			}
			if u.first == nil {
				u.first = o
			}
			var to []string
			if nw != nil {
				b := r.blockOf(old, o.Line())
				for _, n := range nw.Sites {
					if n.Kind != o.Kind || used[n] || !queueUse(n) || !contains(targets, n.Q) {
						continue
					}
					if (o.Changed() && b != 0 && r.blockOf(nw, n.Line()) == b) || (!o.Changed() && !n.Changed() && n.Call.Name == o.Call.Name) {
						used[n] = true
						to = append(to, fmt.Sprintf("%s (%s, line %d)", keyLast(n.Q), n.Call.Name, n.Line()))
					}
				}
			}
			desc := fmt.Sprintf("%s:%d %s(): %s %s", o.Fn.File, o.Line(), o.Fn.Name, siteRole(o), o.Call.Name)
			if len(to) > 0 {
				u.moved = append(u.moved, desc+" -> "+strings.Join(to, ", "))
				if o.Kind == siteWait {
					u.movedWaiters++
				}
			} else {
				u.removed = append(u.removed, desc+" -> removed")
			}
		}
	}
}

// splitBehind finds the users still on queue g, in the patch and the tree.
func (r *checker) splitBehind(g string, u *splitUsers) {
	for _, nw := range r.news {
		if nw == nil {
			continue
		}
		for _, n := range nw.Sites {
			if queueUse(n) && n.Q == g {
				u.behind = append(u.behind, fmt.Sprintf("%s:%d %s(): %s %s still on %s", n.Fn.File, n.Line(), n.Fn.Name, siteRole(n), n.Call.Name, keyLast(g)))
				u.behindWakers += boolInt(n.Kind == siteWake)
				u.behindWaiters += boolInt(n.Kind == siteWait)
			}
		}
	}
	if r.tree != nil {
		for _, s := range r.tree.sitesOn(g) {
			u.treeBehind = append(u.treeBehind, s)
			u.behind = append(u.behind, fmt.Sprintf("%s:%d %s(): %s %s still on %s (tree)", s.Fn.File, s.Line(), s.Fn.Name, siteRole(s), s.Call.Name, keyLast(g)))
			u.behindWakers += boolInt(s.Kind == siteWake)
			u.behindWaiters += boolInt(s.Kind == siteWait)
		}
	}
}

// reportSplit reports the rename or split of queue g.
func (r *checker) reportSplit(g string) {
	targets := r.renames[g]
	var u splitUsers
	r.splitMoves(g, targets, &u)
	r.splitBehind(g, &u)
	moved, removed, behind := u.moved, u.removed, u.behind
	movedWaiters, behindWakers, behindWaiters := u.movedWaiters, u.behindWakers, u.behindWaiters
	first, treeBehind := u.first, u.treeBehind
	if first == nil && len(r.structRenames[g]) == 0 {
		return
	}
	verb := "renamed to"
	if len(targets) > 1 {
		verb = "split into"
	}
	f := report.Finding{
		Category: CategorySplit,
		Severity: report.SeverityNote,
		Key:      g,
		Message:  fmt.Sprintf("wait queue %s %s %s", g, verb, strings.Join(targets, ", ")),
	}
	if loc := r.structWhere[g]; loc != nil {
		f.File, f.Func, f.Line = loc.file, loc.name, loc.line
		f.Old = loc.old
		f.Evidence = append(f.Evidence, loc.new...)
	} else if first != nil {
		f.File, f.Func, f.Line = first.Fn.File, first.Fn.Name, first.Line()
	}
	f.Evidence = append(append(append(f.Evidence, moved...), removed...), behind...)
	expl := fmt.Sprintf("Every waiter, waker and poll_wait() of %s must move to the queue the matching side now uses: a waiter on one queue "+
		"and its waker on another never meet. Users of %s in this patch: %d moved, %d removed, %d left behind.",
		g, keyLast(g), len(moved), len(removed), len(behind))
	if len(behind) > 0 {
		expl += " The users left behind still name the old queue: they no longer compile if the field is gone, and otherwise wait or wake on a queue nobody else uses."
		if movedWaiters > 0 && behindWakers > 0 && behindWaiters == 0 {
			expl += fmt.Sprintf(" Here the waiters moved to %s but %d wake-ups still go to %s, where nobody sleeps any more: those wake-ups are lost and the moved waiters can sleep for good.",
				strings.Join(targets, ", "), behindWakers, g)
		}
		if r.tree != nil && len(treeBehind) > 0 && len(r.structRenames[g]) == 0 {
			if splitSeparates(r.usersAfter(append([]string{g}, targets...))) {
				f.Severity = report.SeverityRisk
			} else {
				expl += " Each waiter still shares its queue with the wake-ups that change the bits its condition tests, so no waiter was separated from a waker that ends its wait."
			}
		}
	}
	if r.tree == nil {
		expl += fmt.Sprintf(" The bot saw only the patch, not the users of %s elsewhere in the tree: please search the tree for %s "+
			"(waiters, wake-ups and poll_wait() calls) and move every one of them too.", g, keyLast(g))
		f.NeedsTree = true
	} else {
		var others []string
		for _, t := range targets {
			for _, s := range r.tree.sitesOn(t) {
				others = append(others, fmt.Sprintf("%s:%d %s(): %s %s on %s (tree)", s.Fn.File, s.Line(), s.Fn.Name, siteRole(s), s.Call.Name, keyLast(t)))
			}
		}
		if len(others) > maxListed {
			others = append(others[:maxListed], fmt.Sprintf("... and %d more users in the tree", len(others)-maxListed))
		}
		f.Evidence = append(f.Evidence, others...)
	}
	f.Explanation = expl
	r.add(f)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// siteRole names what a site does with its queue.
func siteRole(s *wsite) string {
	switch s.Kind {
	case siteWait:
		switch {
		case s.WKind == "poll":
			return "poll"
		case s.Exclusive:
			return "exclusive waiter"
		}
		return "waiter"
	case siteWake:
		return "waker"
	case siteActive:
		return "active check"
	case siteRemove:
		return "removal"
	case siteLock, siteUnlock:
		return "queue lock"
	}
	return "user"
}

// maxListed bounds the tree users listed in one finding.
const maxListed = 40

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

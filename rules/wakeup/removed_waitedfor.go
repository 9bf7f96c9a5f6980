package wakeup

import (
	"regexp"
	"slices"
	"strings"
)

// A new exit that skips a wake-up owes it when some path to the exit
// stored what a waiter of the queue waits for, however far above the exit
// the store is: pipe_write() fills a slot (pipe->head = head + 1) in one
// round of its loop, finds the pipe full in the next and returns on a
// signal before the "out:" path wakes the readers.

// maxWaitersRead bounds the waiters whose conditions are read.
const maxWaitersRead = 16

// storeWaitedFor returns the latest store of f before exit, on a path to
// it, that writes state the condition of one of waiters reads, with no
// wake-up of n's queue after it on the way; "" if none.
func (r *checker) storeWaitedFor(f *wfunc, exit int, n *wsite, waiters []*wsite) string {
	var conds []map[string]bool
	for _, w := range waiters {
		if len(conds) == maxWaitersRead {
			break
		}
		if c := r.condOf(w); c != "" {
			conds = append(conds, stateTokens(r.withHelpers(c, w.Fn.File)))
		}
	}
	if len(conds) == 0 {
		return ""
	}
	fl := flowOf(f)
	lines := sortedLines(f)
	slices.Reverse(lines)
	for _, l := range lines {
		t := f.lines[l]
		if l >= exit || !isStore(t) || !fl.reaches(l, exit) {
			continue
		}
		st := stateTokens(t)
		if !slices.ContainsFunc(conds, func(c map[string]bool) bool { return sharesState(st, c) }) {
			continue
		}
		woken := slices.ContainsFunc(f.sitesOn(siteWake, ""), func(s *wsite) bool {
			return s.Line() > l && s.Line() < exit && r.sameQueue(s.Q, n.Q) && fl.reaches(l, s.Line())
		})
		if !woken && !exitTellsStore(f, fl, l, exit) {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// exitTellsStore reports whether the exit at line of f is taken only on a
// test of a variable that the path from the store at line store sets on
// its way ("ret += copied;" after the store, "if (!ret) return
// -EAGAIN;"): the exit can tell whether the store was made, as a return
// for "nothing written" does.
func exitTellsStore(f *wfunc, fl bodyFlow, store, exit int) bool {
	for _, c := range branchConds(f, exit) {
		for _, m := range guardIdentRe.FindAllStringSubmatch(c, -1) {
			set := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(m[1]) + `\s*(?:[-+|&]?=[^=]|\+\+|--)`)
			for l, t := range f.lines {
				if l > store && l < exit && set.MatchString(codeOnly(t)) && fl.reaches(store, l) {
					return true
				}
			}
		}
	}
	return false
}

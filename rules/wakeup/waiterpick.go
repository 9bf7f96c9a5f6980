package wakeup

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// Which waiter an interleaving names.
//
// A queue keyed by struct type (socket_wq.wait) has waiters all over the
// tree; the one to show is a waiter whose loop re-checks what the waker's
// path stored (sk_state for "sk->sk_state = BT_CONNECTED;"), else one
// near the waker (same directory), else the first that sleeps.

// maxWaitLoopLines bounds the lines after a wait read for its re-check.
const maxWaitLoopLines = 25

// storedMemberRe captures the last member or variable a store assigns.
var storedMemberRe = regexp.MustCompile(`([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?(?:[-+|&^]?=[^=]|\+\+|--)`)

// pickWaiter returns the waiter of ws to name for a waker in file whose
// path stored store ("" when unknown).
func pickWaiter(ws []*wsite, store, file string) *wsite {
	member := ""
	if m := storedMemberRe.FindStringSubmatch(codeOnly(store)); m != nil {
		member = m[1]
	}
	best, bestScore := preferSleeper(ws), -1
	for _, w := range ws {
		score := 0
		if member != "" && waitReads(w, member) {
			score += 4
		}
		if w.Fn != nil && path.Dir(w.Fn.File) == path.Dir(file) {
			score += 2
		}
		if w.WKind != "poll" {
			score++
		}
		if score > bestScore {
			best, bestScore = w, score
		}
	}
	return best
}

// waitReads reports whether waiter w's condition, or its function's
// lines from the wait on (its re-check loop), read name.
func waitReads(w *wsite, name string) bool {
	if containsWord(waitCond(w), name) {
		return true
	}
	if w.Fn == nil {
		return false
	}
	for l := w.Line(); l <= w.Line()+maxWaitLoopLines; l++ {
		if t, ok := w.Fn.lines[l]; ok && strings.Contains(t, name) && containsWord(t, name) {
			return true
		}
	}
	return false
}

// byNearness returns ws ordered by how much of its directory path each
// waiter's file shares with file, nearest first (a subsystem's own
// waiter of a queue type before another driver's), stable otherwise.
func byNearness(ws []*wsite, file string) []*wsite {
	out := slices.Clone(ws)
	near := func(w *wsite) int {
		if w.Fn == nil {
			return 0
		}
		return sharedDirs(path.Dir(w.Fn.File), path.Dir(file))
	}
	slices.SortStableFunc(out, func(a, b *wsite) int { return near(b) - near(a) })
	return out
}

// sharedDirs counts the leading directories paths a and b share.
func sharedDirs(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

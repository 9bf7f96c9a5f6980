package wakeup

import (
	"regexp"
	"strings"
)

// Which waker serves which waiter, for a split queue. Waiters of a flags
// word (wait_on_bit(), wait_var_event() testing a bit) are made runnable
// only by a waker that changes one of the bits they test; a waker that
// changes other bits of the same word wakes them for nothing. A patch that
// moves one bit's waiters and wakers to a new queue (wake_up_var() ->
// clear_and_wake_up_bit(), the waiter to wait_on_bit()) and leaves another
// bit's pair on the old one splits nothing that belongs together: each
// waiter still shares its queue with the wakers that can end its wait. A
// split separates a pair when a waker that changes a bit some waiter tests
// wakes another of the queues than the one the waiter sleeps on. Where the
// bits of either side are not known (a condition in a helper, a store
// through a helper, a plain flag), every waker is taken to serve every
// waiter, so that any waker left on another queue separates.

// bitOpRe finds a call that changes a bit of a word; the bit is its first
// argument.
var bitOpRe = regexp.MustCompile(`^(?:__)?(?:test_and_)?(?:set|clear|change)_bit(?:_unlock|_lock)?$|^clear_and_wake_up_bit$`)

// wakeBitArg gives, for the bit wake-ups, the argument that names the bit.
var wakeBitArg = map[string]int{"wake_up_bit": 1, "clear_and_wake_up_bit": 0}

// maxPairLines bounds how far above a wake-up its bit changes are looked
// for.
const maxPairLines = 25

// constantsIn returns the upper-case constants named in text (bit numbers,
// flag names).
func constantsIn(text string) []string {
	var out []string
	for _, m := range constRe.FindAllStringSubmatch(text, -1) {
		out = appendUnique(out, m[1])
	}
	return out
}

// waiterBits returns the constants a waiter's condition names (the bit of
// wait_on_bit(), the bits a wait_var_event() condition tests); nil when
// its condition names none.
func waiterBits(s *wsite) []string {
	if s.Kind != siteWait {
		return nil
	}
	var out []string
	for _, a := range s.Call.Args {
		if strings.TrimSpace(a) == strings.TrimSpace(s.Arg) {
			continue
		}
		for _, c := range constantsIn(a) {
			if !strings.HasPrefix(c, "TASK_") {
				out = appendUnique(out, c)
			}
		}
	}
	return out
}

// wakerBits returns the bits a waker changes before it wakes: the bit it
// names itself (wake_up_bit(), clear_and_wake_up_bit()) and those of the
// bit operations of its function in the lines above it; nil when there are
// none.
func wakerBits(s *wsite) []string {
	if s.Kind != siteWake {
		return nil
	}
	var out []string
	if i, ok := wakeBitArg[s.Call.Name]; ok && i < len(s.Call.Args) {
		out = append(out, constantsIn(s.Call.Args[i])...)
	}
	if s.Fn == nil || s.Fn.F == nil {
		return out
	}
	for _, c := range s.Fn.F.Calls {
		if c.Line > s.Line() || c.Line < s.Line()-maxPairLines || len(c.Args) == 0 || !bitOpRe.MatchString(c.Name) {
			continue
		}
		for _, k := range constantsIn(c.Args[0]) {
			out = appendUnique(out, k)
		}
	}
	return out
}

// serves reports whether waker w can make waiter s runnable: both name
// bits and share one, or either side's bits are unknown.
func serves(w, s *wsite) bool {
	wb, sb := wakerBits(w), waiterBits(s)
	if len(wb) == 0 || len(sb) == 0 {
		return true
	}
	for _, b := range wb {
		if contains(sb, b) {
			return true
		}
	}
	return false
}

// splitSeparates reports whether the users of the queues keys (the old
// queue and where it went), as they are after the patch, separate a
// waiter from a waker that serves it: the waker wakes another of keys and
// none of its function's wake-ups reaches the waiter's queue.
func splitSeparates(byKey map[string][]*wsite) bool {
	for q, sites := range byKey {
		for _, s := range sites {
			if s.Kind != siteWait {
				continue
			}
			for q2, others := range byKey {
				if q2 == q {
					continue
				}
				for _, w := range others {
					if w.Kind == siteWake && serves(w, s) && !wakesQueue(w.Fn, q) {
						return true
					}
				}
			}
		}
	}
	return false
}

// wakesQueue reports whether f wakes queue q.
func wakesQueue(f *wfunc, q string) bool {
	return f != nil && len(f.sitesOn(siteWake, q)) > 0
}

// usersAfter returns the users of each of keys after the patch: the
// patch's new versions and the tree's other functions.
func (r *checker) usersAfter(keys []string) map[string][]*wsite {
	out := map[string][]*wsite{}
	for _, k := range keys {
		out[k] = nil
		for _, nw := range r.news {
			if nw == nil {
				continue
			}
			for _, s := range nw.Sites {
				if queueUse(s) && s.Q == k {
					out[k] = append(out[k], s)
				}
			}
		}
		if r.tree != nil {
			out[k] = append(out[k], r.tree.sitesOn(k)...)
		}
	}
	return out
}

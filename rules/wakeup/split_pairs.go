package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
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
// wakes another of the queues than the one the waiter sleeps on. Bits are
// named by word and constant; where a waiter's condition tests more than
// bits (a plain flag, a helper), or a waker changes no bit of the words
// the waiter tests, the waker is taken to serve the waiter, so that any
// such waker left on another queue separates.

// bitOpRe finds a call that changes a bit of a word; the bit is its first
// argument, the word its second.
var bitOpRe = regexp.MustCompile(`^(?:__)?(?:test_and_)?(?:set|clear|change)_bit(?:_unlock|_lock)?$|^clear_and_wake_up_bit$`)

// bitTestRe finds a test of a bit of a word in a condition.
var bitTestRe = regexp.MustCompile(`\b(?:test_bit|test_bit_acquire)\s*\(\s*([^,()]+)\s*,\s*([^()]+?)\s*\)`)

// maxPairLines bounds how far above a wake-up its bit changes are looked
// for.
const maxPairLines = 25

// wordBit names one bit of one word: the word's last member and the
// bit's constant ("state:TASKLET_STATE_RUN"); "" when the bit is no
// constant.
func wordBit(word, bit string) string {
	w := keyLast(stripAddr(word))
	if i := strings.LastIndexAny(w, ">."); i >= 0 {
		w = w[i+1:]
	}
	b := strings.TrimSpace(bit)
	if w == "" || b == "" || constRe.FindString(b) != b {
		return ""
	}
	return w + ":" + b
}

// waiterBits returns the bits of a word a waiter waits for: the tested
// bits of a wait condition made of bit tests alone (each || term a
// test_bit(), negated or not; waitCond gives wait_on_bit*() its
// "!test_bit(bit, word)"). nil when the
// condition tests anything else: then every waker may serve it.
func waiterBits(s *wsite) []string {
	if s.Kind != siteWait {
		return nil
	}
	cond := waitCond(s)
	if cond == "" {
		return nil
	}
	var out []string
	for _, t := range splitOr(cond) {
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cscan.StripParens(t)), "!"))
		m := bitTestRe.FindStringSubmatch(t)
		if m == nil || strings.TrimSpace(m[0]) != t {
			return nil
		}
		b := wordBit(m[2], m[1])
		if b == "" {
			return nil
		}
		out = appendUnique(out, b)
	}
	return out
}

// wakerBits returns the bits of a word a waker changes before it wakes:
// the bit it names itself (wake_up_bit(), clear_and_wake_up_bit()) and
// those of the bit operations of its function in the lines above it; nil
// when there are none.
func wakerBits(s *wsite) []string {
	if s.Kind != siteWake {
		return nil
	}
	var out []string
	args := s.Call.Args
	switch {
	case s.Call.Name == "wake_up_bit" && len(args) >= 2:
		out = appendUnique(out, wordBit(args[0], args[1]))
	case s.Call.Name == "clear_and_wake_up_bit" && len(args) >= 2:
		out = appendUnique(out, wordBit(args[1], args[0]))
	}
	if s.Fn != nil && s.Fn.F != nil {
		for _, c := range s.Fn.F.Calls {
			if c.Line > s.Line() || c.Line < s.Line()-maxPairLines || len(c.Args) < 2 || !bitOpRe.MatchString(c.Name) {
				continue
			}
			out = appendUnique(out, wordBit(c.Args[1], c.Args[0]))
		}
	}
	var bits []string
	for _, b := range out {
		if b != "" {
			bits = append(bits, b)
		}
	}
	return bits
}

// serves reports whether waker w can make waiter s runnable: the waker
// changes a bit the waiter tests. When the waiter's bits are unknown, or
// the waker changes no bit of the words the waiter tests, it may.
func serves(w, s *wsite) bool {
	sb := waiterBits(s)
	if len(sb) == 0 {
		return true
	}
	words := map[string]bool{}
	for _, b := range sb {
		words[b[:strings.IndexByte(b, ':')]] = true
	}
	known := false
	for _, b := range wakerBits(w) {
		if !words[b[:strings.IndexByte(b, ':')]] {
			continue
		}
		known = true
		if contains(sb, b) {
			return true
		}
	}
	return !known
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

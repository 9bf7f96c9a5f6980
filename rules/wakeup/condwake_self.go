package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A wake-up that makes its sleepers' condition true itself (complete()
// raises the count wait_for_completion() waits for, clear_and_wake_up_bit()
// clears the bit wait_on_bit() waits on) needs no store before it for a
// gate to lose a waiter: when the patch's new gate is false, the condition
// is never made true and nobody is woken. The gate is the protocol
// working as designed when it counts or claims (the last reference drops,
// the first to test-and-clear a bit completes: the completion means "all
// done" or "once"), when it tests the completion or word itself ("if
// (!completion_done(&c))": what the waiter waits for), or when it reads
// state the waiter's own function sets before it sleeps (the waker is
// told whether anyone waits). A function that wakes the queue elsewhere
// too may wake it on the gate's other path, and one whose gate is a flag
// it raises itself ("if (do_complete)" after the cases that used to
// complete set it) decided on its paths where to wake: both are left a
// note. So is a gate on what the device reports (an interrupt handler
// that completes only when its status register says the transfer is
// done): the call was not the event otherwise.

// claimGateRe matches a gate term that counts or claims: an atomic
// decrement or exchange, a reference put, a test-and-modify bit operation
// (and their _lock, _relaxed, _acquire forms), an emptiness or count test.
var claimGateRe = regexp.MustCompile(`\b(?:atomic\w*_(?:dec|sub|xchg|cmpxchg|read|fetch)\w*|refcount_\w+|kref_put\w*|_*test_and_\w+_bit\w*|xchg\w*|cmpxchg\w*|try_cmpxchg\w*|list_empty\w*|llist_empty|\w*_dec_and_\w+|percpu_ref_\w+)\s*\(|--|-=`)

// decideSelfStoring escalates the note on wake-up n, now gated by guards,
// to a risk when n itself makes its sleepers' condition true and none of
// the exemptions above holds: the gate is no else branch, does not count
// or claim, does not test the completion or bit itself, reads nothing a
// sleeper's function stores before it sleeps, and is no flag the function
// raises; nor does the function wake the queue elsewhere.
func (r *checker) decideSelfStoring(f *report.Finding, nw *wfunc, n *wsite, guards []cscan.Guard) {
	self := r.selfTerms(n)
	for _, g := range guards {
		if g.Kind == "else" || claimGateRe.MatchString(g.Cond) {
			return
		}
		if len(self) > 0 && mentionsAll(g.Cond, self) {
			return // it tests the completion or bit itself (completion_done())
		}
	}
	for _, s := range nw.sitesOn(siteWake, "") {
		if s != n && r.sameQueue(s.Q, n.Q) {
			return // another wake-up of the queue may cover the other path
		}
	}
	if gateDecidedLocally(nw, guards) || r.deviceGate(nw, guards) {
		return
	}
	for _, w := range r.otherWaiters(n.Q, nw.Name) {
		if waiterSetsGate(w, guards) {
			return
		}
	}
	for _, w := range r.otherWaiters(n.Q, nw.Name) {
		gate := strings.Join(strings.Fields(guards[0].Cond), " ")
		r.riskGated(f, w, nw, n, guards[0].Line, "wake-up now gated: if ("+gate+")", "the gated wake-up: ", [][2]string{
			{"", w.Text()},
			{"", "  not yet: sleeps"},
			{"if (" + gate + ") is false", ""},
			{"  (skips " + n.Text() + ")", "sleeps on"},
		})
		f.Explanation = fmt.Sprintf("%s() used to make %s's condition true and wake it with %s in every case; now it does only if %s. "+
			"%s waits for nothing else, and the gate neither counts the last user nor reads anything the waiter sets, "+
			"so when it is false the waiter sleeps on. Make the wake-up unconditional, or make it on the other path too.",
			nw.Name, siteWhere(w), n.Call.Name+"()", gate, w.Text())
		return
	}
}

// selfTerms returns what a gate must name to test the state wake-up n
// makes true itself: the completion, or the word and the bit of
// clear_and_wake_up_bit().
func (r *checker) selfTerms(n *wsite) []string {
	obj := strings.Join(strings.Fields(stripAddr(n.Arg)), "")
	if obj == "" {
		return nil
	}
	out := []string{obj}
	if w := r.p.waker(n.Call.Name); w != nil && w.Kind == "bit" && w.Queue <= 1 && len(n.Call.Args) > 1 {
		out = append(out, strings.Join(strings.Fields(n.Call.Args[1-w.Queue]), ""))
	}
	return out
}

// mentionsAll reports whether cond names every one of terms as a whole
// expression: not as the start of a longer name ("done" in
// "done_early") nor as a member of another object.
func mentionsAll(cond string, terms []string) bool {
	c := strings.Join(strings.Fields(cond), "")
	for _, t := range terms {
		found := false
		for i := strings.Index(c, t); i >= 0 && !found; {
			before := i == 0 || !isIdentByte(c[i-1]) && c[i-1] != '.' && c[i-1] != '>'
			end := i + len(t)
			after := end == len(c) || !isIdentByte(c[end])
			found = before && after
			if j := strings.Index(c[i+1:], t); j >= 0 {
				i += 1 + j
			} else {
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// waiterSetsGate reports whether a gate reads state that the waiter's
// function stores before it sleeps: the waiter tells the waker it waits
// ("if (req->sync) complete(&req->done)" after "req->sync = true" beside
// wait_for_completion()).
func waiterSetsGate(w *wsite, guards []cscan.Guard) bool {
	read := map[string]bool{}
	for _, g := range guards {
		for t := range stateTokens(g.Cond) {
			read[t] = true
		}
	}
	for l, t := range w.Fn.lines {
		if l < w.Line() && isStore(t) && sharesState(stateTokens(t), read) {
			return true
		}
	}
	return false
}

// gateDecidedLocally reports whether a gate is a local flag that the
// function raises before it ("do_complete = true;", "wake |= ..."), tested
// as it is, alone or in a conjunction: the wake-up was deferred to one
// place and the paths that need it say so. A local holding a status
// ("ret = foo(); if (!ret)"), or a flag tested negated, is no such gate.
func gateDecidedLocally(f *wfunc, guards []cscan.Guard) bool {
	for _, g := range guards {
		for _, term := range splitTop(cscan.StripParens(strings.TrimSpace(g.Cond)), "&&") {
			name := strings.TrimSpace(cscan.StripParens(strings.TrimSpace(term)))
			if !localNameRe.MatchString(name) {
				continue
			}
			set := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(name) + `\s*(?:=\s*(?:true|1)\s*;|\|=)`)
			for l, t := range f.lines {
				if l < g.Line && set.MatchString(codeOnly(t)) {
					return true
				}
			}
		}
	}
	return false
}

// localNameRe matches a plain identifier.
var localNameRe = regexp.MustCompile(`^[A-Za-z_]\w*$`)

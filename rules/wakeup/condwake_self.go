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
// told whether anyone waits). A function
// that wakes the queue elsewhere too may wake it on the gate's other
// path, and one whose gate is a flag it raises itself ("if (do_complete)"
// after the cases that used to complete set it) decided on its paths
// where to wake: both are left a note.

// claimGateRe matches a gate term that counts or claims: an atomic
// decrement or exchange, a reference put, a test-and-modify bit operation,
// an emptiness or count test.
var claimGateRe = regexp.MustCompile(`\b(?:atomic\w*_(?:dec|sub|xchg|cmpxchg|read|fetch)\w*|refcount_\w+|kref_put\w*|test_and_(?:set|clear|change)_bit|__test_and_(?:set|clear)_bit|xchg|cmpxchg|try_cmpxchg|list_empty\w*|llist_empty|\w*_dec_and_\w+|percpu_ref_\w+)\s*\(|--|-=`)

// decideSelfStoring escalates the note on wake-up n, now gated by guards,
// to a risk when n itself makes its sleepers' condition true and the gate
// neither counts or claims nor reads what a sleeper's function sets.
func (r *checker) decideSelfStoring(f *report.Finding, nw *wfunc, n *wsite, guards []cscan.Guard) {
	obj := strings.Join(strings.Fields(stripAddr(n.Arg)), "")
	for _, g := range guards {
		if g.Kind == "else" || claimGateRe.MatchString(g.Cond) {
			return
		}
		if obj != "" && strings.Contains(strings.Join(strings.Fields(g.Cond), ""), obj) {
			return // it tests the completion or word itself (completion_done())
		}
	}
	for _, s := range nw.sitesOn(siteWake, "") {
		if s != n && r.sameQueue(s.Q, n.Q) {
			return // another wake-up of the queue may cover the other path
		}
	}
	if gateDecidedLocally(nw, guards) {
		return
	}
	for _, w := range r.otherWaiters(n.Q, nw.Name) {
		if waiterSetsGate(w, guards) {
			return
		}
	}
	for _, w := range r.otherWaiters(n.Q, nw.Name) {
		gate := strings.Join(strings.Fields(guards[0].Cond), " ")
		r.riskUnwoken(f, w, nw, guards[0].Line, "wake-up now gated: if ("+gate+")")
		f.Chain = append(f.Chain, step(n, "the gated wake-up: "+n.Text()))
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
			{"", w.Text()},
			{"", "  not yet: sleeps"},
			{"if (" + gate + ") is false", ""},
			{"  (skips " + n.Text() + ")", "sleeps on"},
		})...)
		f.Explanation = fmt.Sprintf("%s() used to make %s's condition true and wake it with %s in every case; now it does only if %s. "+
			"%s waits for nothing else, and the gate neither counts the last user nor reads anything the waiter sets, "+
			"so when it is false the waiter sleeps on. Make the wake-up unconditional, or make it on the other path too.",
			nw.Name, siteWhere(w), n.Call.Name+"()", gate, w.Text())
		return
	}
}

// waiterSetsGate reports whether a gate term reads a member that the
// waiter's function stores: the waiter tells the waker it waits ("if
// (req->sync) complete(&req->done)" after "req->sync = true" beside
// wait_for_completion()).
func waiterSetsGate(w *wsite, guards []cscan.Guard) bool {
	read := map[string]bool{}
	for _, g := range guards {
		for t := range stateTokens(g.Cond) {
			read[t] = true
		}
	}
	for _, t := range w.Fn.lines {
		if !isStore(t) {
			continue
		}
		for s := range stateTokens(t) {
			if read[s] {
				return true
			}
		}
	}
	return false
}

// gateDecidedLocally reports whether a gate reads a local flag that the
// function raises before it ("do_complete = true;", "wake |= ..."): the
// wake-up was deferred to one place and the paths that need it say so.
// A local holding a status ("ret = foo(); if (!ret)") is no such flag.
func gateDecidedLocally(f *wfunc, guards []cscan.Guard) bool {
	for _, g := range guards {
		for _, m := range guardIdentRe.FindAllStringSubmatchIndex(g.Cond, -1) {
			name := g.Cond[m[2]:m[3]]
			if i := m[0]; i > 0 && (g.Cond[i-1] == '.' || g.Cond[i-1] == '>') {
				continue // a member, not a local
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

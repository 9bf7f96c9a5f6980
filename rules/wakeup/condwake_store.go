package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// This file decides a wake-up the patch made conditional (checkConditional)
// from the waiters' side of the protocol: the wake-up is owed when the
// path before it stores what a waiter of the queue checks, and the new
// condition does not test that state.

// constRe finds the upper-case names a text uses (bit numbers, states).
var constRe = regexp.MustCompile(`\b([A-Z][A-Z0-9_]{2,})\b`)

// guardIdentRe finds plain identifiers (locals a guard tests).
var guardIdentRe = regexp.MustCompile(`\b([a-z_]\w*)\b`)

// weakMembers are members too generic to tie a store to a condition on
// their own: a store to x->flags pairs with a waiter's test of x->flags only
// when the same bit name appears on both sides.
var weakMembers = map[string]bool{"flags": true}

// stateTokens returns the members and upper-case names text names: what a
// wait condition reads or a store writes.
func stateTokens(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range memberPartRe.FindAllStringSubmatch(text, -1) {
		out[m[1]] = true
	}
	for _, m := range constRe.FindAllStringSubmatch(text, -1) {
		out[m[1]] = true
	}
	return out
}

// sharesState reports whether a store and a wait condition touch the same
// state: a member other than a weak one, or an upper-case name.
func sharesState(store, cond map[string]bool) bool {
	for t := range store {
		if !cond[t] {
			continue
		}
		if constRe.MatchString(t) || !weakMembers[t] {
			return true
		}
	}
	return false
}

// storesBefore returns the lines of f before line that store shared
// state, directly or through a setter, nearest first, up to the previous
// wake-up of queue q in f (which already covered what came before it),
// and what each stores (storeText).
func (r *checker) storesBefore(f *wfunc, line int, q string) ([]int, map[int]string) {
	stop := 0
	for _, s := range f.sitesOn(siteWake, "") {
		if s.Line() < line && s.Line() > stop && r.sameQueue(s.Q, q) {
			stop = s.Line()
		}
	}
	var lines []int
	for l := range f.lines {
		if l > stop && l < line {
			lines = append(lines, l)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(lines)))
	var out []int
	texts := map[int]string{}
	for _, l := range lines {
		if t := r.storeText(f, l); t != "" {
			out = append(out, l)
			texts[l] = t
		}
	}
	return out, texts
}

// loopHeaderRe matches the header of a for loop.
var loopHeaderRe = regexp.MustCompile(`^\s*for\s*\(`)

// guardTracks reports whether the new guards test the state the waiter
// waits for, directly or through a local the function sets next to a store
// of that state: then the wake-up is skipped only when nothing the waiter
// checks changed ("wake only if it became true"), which is the protocol
// working as designed.
func guardTracks(f *wfunc, guards []cscan.Guard, cond map[string]bool, stores map[int]string) bool {
	for _, g := range guards {
		if sharesState(stateTokens(g.Cond), cond) {
			return true
		}
		for _, m := range guardIdentRe.FindAllStringSubmatch(g.Cond, -1) {
			local := m[1]
			set := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(local) + `\s*(?:[-+|&]?=[^=]|\+\+|--)`)
			for l, t := range f.lines {
				if l >= g.Line || !set.MatchString(t) || loopHeaderRe.MatchString(t) {
					continue // a loop's iterator reports no store
				}
				if sharesState(stateTokens(t), cond) {
					return true // the local is computed from the waited-for state
				}
				for s, st := range stores {
					if d := l - s; d >= -3 && d <= 3 && sharesState(stateTokens(st), cond) {
						return true // set beside the store it reports
					}
				}
			}
		}
	}
	return false
}

// decideConditional escalates the note on wake-up n, now gated by guards,
// to a risk when a waiter of n's queue waits for state that the path
// before start (the first gate, or the wake-up itself for a gate on the
// store of the flag it tests) stores, and the guards do not test that
// state: when they are false the store is made and its waiter is not
// woken. A wake-up that stores that state itself is judged by
// decideSelfStoring.
func (r *checker) decideConditional(f *report.Finding, nw *wfunc, n *wsite, guards []cscan.Guard, start int) {
	if w := r.p.waker(n.Call.Name); w != nil && w.Stores {
		r.decideSelfStoring(f, nw, n, guards)
		return
	}
	stores, texts := r.storesBefore(nw, start, n.Q)
	if len(stores) == 0 {
		return
	}
	refutes := r.refutingStores(nw, guards, stores, texts)
	covered := map[int]bool{}
	for _, s := range stores {
		covered[s] = gatesCover(nw, s, guards)
	}
	for _, w := range byNearness(r.otherWaiters(n.Q, nw.Name), nw.File) {
		c, state := r.condOf(w), ""
		if c == "" && w.WKind == "poll" {
			// A poll function waits for the events its mask reports.
			// Its code after poll_wait() computes the mask.
			c, state = "the events "+w.Fn.Name+"() reports", codeLines(w.Fn, w.Line(), 0)
		}
		if state == "" {
			state = c
		}
		if state == "" {
			continue
		}
		cond := stateTokens(r.withHelpers(state, w.Fn.File))
		var store int
		for _, s := range stores {
			if !covered[s] && sharesState(stateTokens(texts[s]), cond) {
				store = s
				break
			}
		}
		if store == 0 {
			continue
		}
		refuting := refutedFor(refutes, c)
		stale := 0
		if refuting == 0 && guardTracks(nw, guards, cond, texts) {
			if stale = r.staleGate(nw, guards, cond, store); stale == 0 {
				continue
			}
		}
		if refuting != 0 {
			store = refuting
		}
		st := strings.TrimSpace(nw.text(store))
		if t := strings.TrimSpace(texts[store]); t != st {
			st += " (" + t + ")" // a setter's store
		}
		gate := strings.Join(strings.Fields(guards[0].Cond), " ")
		r.riskGated(f, w, nw, n, guards[0].Line, "wake-up now gated: if ("+gate+")", "the gated wake-up: ", [][2]string{
			{"", w.Text()},
			{"", "  condition false: sleeps"},
			{st, ""},
			{"if (" + gate + ") is false", ""},
			{"  (skips " + n.Text() + ")", "sleeps on; " + c + " now holds"},
		})
		f.Explanation = fmt.Sprintf("%s() stores `%s`, which %s waits for (`%s`), and then wakes %s only if %s. That condition does not test what the waiter checks, so when it is false the state the waiter needs is there and nobody wakes it. Wake the queue whenever the store is made, or gate the wake-up on the waited-for state itself.",
			nw.Name, st, siteWhere(w), c, n.Q, gate)
		if stale != 0 {
			f.Explanation = fmt.Sprintf("%s() decides whether to wake %s from `%s`, read at line %d before it takes the lock it stores `%s` under: another task can change that state in between (a reader empties the list and goes to sleep), and the wake-up is skipped after a store %s waits for (`%s`). Read the gate's state under the lock, with the store, or wake unconditionally.",
				nw.Name, n.Q, strings.TrimSpace(nw.text(stale)), stale, st, siteWhere(w), c)
		}
		if refuting != 0 {
			f.Explanation = fmt.Sprintf("%s() stores `%s`, which makes the condition %s waits for (`%s`) true, and then wakes %s only if %s, which that store makes false: the wake-up never follows the store its waiter needs. Test the waited-for state with the sense the waiter reads it, or wake whenever the store is made.",
				nw.Name, st, siteWhere(w), c, n.Q, gate)
		}
		return
	}
}

// riskGated makes f a risk for waiter w, which wake-up n no longer wakes
// when the gate at line is false: the chain through the waiter, the gate
// (what) and the wake-up (stepWhat), and the interleaving rows under the
// waker and the waiter.
func (r *checker) riskGated(f *report.Finding, w *wsite, nw *wfunc, n *wsite, line int, what, stepWhat string, rows [][2]string) {
	r.riskUnwoken(f, w, nw, line, what)
	f.Chain = append(f.Chain, step(n, stepWhat+n.Text()))
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", rows)...)
}

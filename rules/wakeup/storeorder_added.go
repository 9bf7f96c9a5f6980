package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A store the patch adds after the last wake-up of a queue, when the store
// makes the condition of that queue's waiters true (busy = 0 for a waiter
// of !busy): the wake-up before it made the waiter re-test too early, and
// no wake-up follows the store on this path (in the function, its callees
// or its callers). The waiter sleeps on with its condition true.

// flagStoreRe matches a store of a constant to a member: "x->f = V;" or
// "WRITE_ONCE(x->f, V);" (groups: the member chain and the value).
var flagStoreRe = regexp.MustCompile(`^\s*(?:WRITE_ONCE\(\s*([\w>.\-\s]+?)\s*,\s*(\w+)\s*\)|([\w>.\-\s]+?)\s*=\s*(\w+))\s*;`)

// condNeedsRe matches a condition term testing one member for zero
// (needs "0") or non-zero (needs "1"): !x->f, x->f == 0, x->f, x->f != 0,
// with or without READ_ONCE().
var condNeedsRe = regexp.MustCompile(`^(!?)\s*(?:READ_ONCE\()?\s*([\w>.\-]+?)\s*\)?\s*(?:(==|!=)\s*(0|false|NULL))?$`)

// storeValue returns "0" or "1" for a stored constant, "" if unknown.
func storeValue(v string) string {
	switch v {
	case "0", "false", "NULL":
		return "0"
	case "true":
		return "1"
	}
	if constNr.MatchString(v) {
		return "1"
	}
	return ""
}

// termNeeds returns the member chain a condition term tests and the value
// class ("0" or "1") that makes it true; "" when the term is no such test.
func termNeeds(term string) (string, string) {
	m := condNeedsRe.FindStringSubmatch(strings.TrimSpace(cscan.StripParens(strings.TrimSpace(term))))
	if m == nil || !strings.Contains(m[2], "->") && !strings.Contains(m[2], ".") {
		return "", ""
	}
	zero := m[1] == "!"
	if m[3] == "==" {
		zero = !zero
	}
	if zero {
		return m[2], "0"
	}
	return m[2], "1"
}

// checkAddedStoreAfterWake reports a store the patch adds after the last
// wake-up of a queue that makes its waiters' condition true.
func (r *checker) checkAddedStoreAfterWake() {
	r.eachAddedStore(r.storeAfterLastWake)
}

// storeAfterLastWake reports (and returns true) when the store of val to
// lhs at line l of nw follows the last wake-up of a queue of the same
// object whose waiters need that value, with no wake-up covering it.
func (r *checker) storeAfterLastWake(nw *wfunc, l int, lhs, val string) bool {
	obj, member := wakeObject(lhs), wakeMember(lhs)
	var last *wsite
	for _, s := range nw.sitesOn(siteWake, "") {
		if s.Derived || wakeObject(s.Arg) != obj {
			continue
		}
		if s.Line() > l {
			return false
		}
		last = s
	}
	if last == nil {
		return false
	}
	for _, s := range nw.sitesOn(siteWake, "") {
		if s.Line() > l && r.sameQueue(s.Q, last.Q) {
			return false
		}
	}
	for _, w := range r.otherWaiters(last.Q, nw.Name) {
		if !waitsFor(w, member, val) {
			continue
		}
		if c := r.coveringWake(nw, last.Q, l+1, last); c != "" {
			return false
		}
		r.reportAddedStoreAfterWake(nw, l, last, w)
		return true
	}
	return false
}

func (r *checker) reportAddedStoreAfterWake(nw *wfunc, l int, wk, w *wsite) {
	st := strings.TrimSpace(nw.text(l))
	f := report.Finding{
		Category: CategoryStateOrder,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: l, Key: wk.Q,
		Message:  fmt.Sprintf("%s() now makes `%s` after its last wake-up of %s, and the waiters of %s wait for it", nw.Name, st, wk.Q, wk.Q),
		Evidence: []string{nw.evidence(wk.Line()), nw.evidence(l)},
	}
	f.Chain = append(f.Chain, step(w, "waits: "+w.Text()))
	f.Chain = append(f.Chain, step(wk, "wakes before the store: "+wk.Text()))
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: l, What: "store after the wake-up: " + st})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{"", "condition false: sleeps"},
		{wk.Text(), ""},
		{"", "woken: re-tests, still false, sleeps again"},
		{st, ""},
		{"(no wake-up follows)", "sleeps on although its condition holds"},
	})...)
	f.Explanation = fmt.Sprintf("%s waits for %s. %s() now makes that true with `%s` after its last wake-up of %s, and nothing on this path (the function, its callees or its callers) wakes the queue after the store. A waiter woken by the earlier wake-up re-tests before the store and sleeps again. Store before the wake-up, or wake after the store.",
		siteWhere(w), condOrState(w), nw.Name, st, wk.Q)
	r.add(f)
}

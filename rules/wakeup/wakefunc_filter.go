package wakeup

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A wake function's filter often asks the sleeper's own question: "is
// this event for me?" is answered by the helper the sleeper uses to pick
// what it takes once awake (child_wait_callback() declining unless
// eligible_pid(wo, p), the test do_wait() applies to each child through
// eligible_child()). A patch that replaces such a call in the decline
// condition with its own test, one that no longer reads some of the state
// the helper reads (the pid type), makes the two disagree: events the
// sleeper would take are declined, and it sleeps with one pending. A test
// that keeps every member and constant the helper reads (the helper
// written out) is no such change.

// checkReplacedFilter reports decline condition nc of wake function nw,
// which was oc before the patch, when oc called a helper that another
// function of the file calls too and nc no longer reads all the state
// that helper's body reads. o and n are the old and new returns.
func (r *checker) checkReplacedFilter(old, nw *wfunc, o, n wakeReturn, oc, nc string) bool {
	if m := r.maps[nw.File]; m == nil || m.newToOld[n.line] != o.line {
		return false // not the same return
	}
	newCalls := helperCalls(nc)
	for h := range helperCalls(oc) {
		if newCalls[h] {
			continue
		}
		body, ok := r.funcText(h, nw.File)
		if !ok {
			continue
		}
		user, at := r.otherCaller(nw, h)
		if user == "" {
			continue
		}
		// The members the helper reads: its constants and macros
		// (WARN_ON_ONCE, -EINVAL) are not the state it tests.
		have := stateTokens(r.withHelpers(nc, nw.File))
		var lost []string
		for _, m := range memberPartRe.FindAllStringSubmatch(bodyOnly(body), -1) {
			if t := m[1]; !have[t] && !weakMembers[t] && !slices.Contains(lost, t) {
				lost = append(lost, t)
			}
		}
		if len(lost) == 0 {
			continue
		}
		sort.Strings(lost)
		r.reportReplacedFilter(old, nw, o, n, h, report.Step{Func: user, File: nw.File, Line: at}, lost)
		return true
	}
	return false
}

// bodyOnly returns a function's text from its opening brace: its
// parameters' names are no state it reads.
func bodyOnly(text string) string {
	if i := strings.IndexByte(text, '{'); i >= 0 {
		return text[i:]
	}
	return text
}

// otherCaller returns a function of f's file, other than f, that calls
// name, and the line of the call; "" if none.
func (r *checker) otherCaller(f *wfunc, name string) (string, int) {
	if r.tree == nil {
		return "", 0
	}
	file := r.tree.parsed(r.tree.relPath(f.File))
	if file == nil {
		return "", 0
	}
	for _, fn := range file.Funcs {
		if fn.Name == f.Name || fn.Name == name {
			continue
		}
		for _, c := range fn.Calls {
			if c.Name == name {
				return fn.Name, c.Line
			}
		}
	}
	return "", 0
}

// reportReplacedFilter reports the decline of checkReplacedFilter.
func (r *checker) reportReplacedFilter(old, nw *wfunc, o, n wakeReturn, helper string, use report.Step, lost []string) {
	nc, user := n.conds[len(n.conds)-1], use.Func
	var ev, was []string
	for l := n.line - 4; l <= n.line; l++ {
		if nw.changed(l) || l == n.line {
			ev = append(ev, nw.evidence(l))
		}
	}
	for l := o.line - 4; l <= o.line; l++ {
		if old.changed(l) || l == o.line {
			was = append(was, old.evidence(l))
		}
	}
	fr := report.Finding{
		Category: CategoryWakeFunc,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: n.line,
		Message: fmt.Sprintf("wake function %s() no longer filters events with %s(), the test %s() applies: its new test does not read %s",
			nw.Name, helper, user, strings.Join(lost, ", ")),
		Evidence: ev,
		Old:      was,
	}
	use.What = "the sleeper's side asks " + helper + "() which events are for it"
	fr.Chain = append(fr.Chain,
		report.Step{Func: nw.Name, File: nw.File, Line: n.line, What: "declines when: " + nc}, use)
	fr.Evidence = append(fr.Evidence, interleaving("a waker (event for the sleeper)", nw.Name+"() (sleeper's entry)", [][2]string{
		{"", "sleeps: nothing for it yet"},
		{"event that " + helper + "() would accept", ""},
		{"", nw.Name + "(): " + nc + " holds, returns 0"},
		{"", "not woken; the event it waits for is pending"},
	})...)
	fr.Explanation = fmt.Sprintf("%s() used to decline an event unless %s() accepted it, the test %s() uses to pick what the sleeper takes once awake. The new test `%s` reads none of %s, which %s() reads: for events that differ only there, it declines what the sleeper would take, and the sleeper waits for an event that is already pending. Keep the filter and the sleeper's test the same (call %s()).",
		nw.Name, helper, user, nc, strings.Join(lost, ", "), helper, helper)
	r.add(fr)
}

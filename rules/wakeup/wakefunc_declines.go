package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A wake function declines an event (returns 0 without waking its task)
// when the event is not for its waiter: the waker's key names another
// object, bit or event mask. Such a filter compares the entry with the
// key. A condition the patch adds to a decline that does not read the key
// at all (a flag of the entry, a state of the waiter) declines events the
// waiter was woken for before, whatever the waker says: the waiter sleeps
// on although its event came.

// checkWakeDeclines reports a decline of wake function nw that the patch
// widened with a condition that does not read the waker's key: an ||
// term added to the condition of a return 0, or a new return 0 under a
// new if before the function wakes its task.
func (r *checker) checkWakeDeclines(old, nw *wfunc) {
	if old == nil || old.F == nil || nw.F == nil {
		return
	}
	keys := wakeKeyNames(nw)
	if len(keys) == 0 {
		return
	}
	olds := r.wakeReturns(old)
	for _, n := range r.wakeReturns(nw) {
		if n.kind != retDecline || len(n.conds) == 0 {
			continue
		}
		last := n.conds[len(n.conds)-1]
		if strings.HasPrefix(last, "loop ") || strings.HasPrefix(last, "switch ") {
			continue
		}
		added := r.addedDeclineTerms(nw, olds, n)
		for _, t := range added {
			if readsAny(t, keys) {
				continue
			}
			r.reportWakeDecline(old, nw, n, t)
			return
		}
	}
}

// addedDeclineTerms returns the || terms of decline n's last condition
// that the patch added: all of a new if's terms (a new return 0 on a
// changed line with no old return under the same outer conditions), or
// the terms the old return's condition did not have.
func (r *checker) addedDeclineTerms(nw *wfunc, olds []wakeReturn, n wakeReturn) []string {
	last := n.conds[len(n.conds)-1]
	outer := n.conds[:len(n.conds)-1]
	norm := func(t string) string { return strings.Join(strings.Fields(stripParens(strings.TrimSpace(t))), "") }
	for _, o := range olds {
		if o.kind != retDecline || len(o.conds) != len(n.conds) || !sameConds(o.conds[:len(o.conds)-1], outer) {
			continue
		}
		was := map[string]bool{}
		for _, t := range splitOr(o.conds[len(o.conds)-1]) {
			was[norm(t)] = true
		}
		var added []string
		common := 0
		for _, t := range splitOr(last) {
			if was[norm(t)] {
				common++
			} else {
				added = append(added, strings.TrimSpace(t))
			}
		}
		if common > 0 {
			return added // the same filter, widened
		}
	}
	if !nw.changed(n.line) {
		return nil
	}
	for _, o := range olds {
		if o.kind == retDecline && sameConds(o.conds, n.conds) {
			return nil
		}
	}
	var out []string
	for _, t := range splitOr(last) {
		out = append(out, strings.TrimSpace(t))
	}
	return out
}

// wakeKeyNames returns the names through which wake function f reads the
// waker's key: its last parameter and the locals assigned from it
// ("struct wait_bit_key *key = arg;").
func wakeKeyNames(f *wfunc) []string {
	params := paramNames(f.header(), f.Name)
	if len(params) < 4 || params[len(params)-1] == "" {
		return nil
	}
	key := params[len(params)-1]
	out := []string{key}
	re := regexp.MustCompile(`\b([A-Za-z_]\w*)\s*=\s*(?:\([^()]*\)\s*)?` + regexp.QuoteMeta(key) + `\s*;`)
	for l := f.F.BodyStart; l <= f.F.End; l++ {
		if m := re.FindStringSubmatch(codeOnly(f.lines[l])); m != nil {
			out = appendUnique(out, m[1])
		}
	}
	return out
}

// readsAny reports whether text reads one of the variables names (not a
// member of that name: wait_bit->key is no read of a variable key).
func readsAny(text string, names []string) bool {
	for _, n := range names {
		re := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(n) + `\b`)
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// reportWakeDecline makes the risk of a decline widened by term.
func (r *checker) reportWakeDecline(old, nw *wfunc, n wakeReturn, term string) {
	nt := strings.TrimSpace(nw.text(n.line))
	term = strings.Join(strings.Fields(term), " ")
	f := report.Finding{
		Category: CategoryWakeFunc,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: n.line,
		Message:  fmt.Sprintf("wake function %s() now declines the event (%s) also when `%s`, which does not read the waker's key", nw.Name, nt, term),
		Evidence: []string{nw.evidence(n.line)},
	}
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: n.line, What: "declines when " + term + ": " + nt})
	f.Evidence = append(f.Evidence, interleaving("waker: __wake_up_common()", "this entry's task", [][2]string{
		{"makes the event true, wakes the queue", "sleeps, waiting for the event"},
		{nw.Name + "(): " + term + " holds", ""},
		{"  " + nt + ": the entry declines", "not woken; sleeps on although its event came"},
	})...)
	f.Explanation = fmt.Sprintf("A wake function returns 0 without waking its task when the event is not for it: a filter that compares the entry with the waker's key. %s() now also declines when `%s`, a condition of the entry or of the waiter alone, not of the event: a wake-up that used to wake this task for its event is dropped, and nothing wakes it again for that event. Filter on the key, or wake the task and let it re-test its condition.",
		nw.Name, term)
	r.add(f)
}

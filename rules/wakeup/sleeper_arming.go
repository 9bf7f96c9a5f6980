package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// This file checks the sleeper's side of the protocol in open-coded sleeps:
// a task must be armed (its sleeping state set, or queued by
// prepare_to_wait*()) before it makes its last check of the condition,
// drops the lock the waker takes, or publishes itself as the task to wake.
// A wake-up that lands between such a step and the arming finds the task
// still running, does nothing, and the task then sleeps with its condition
// true. The check compares, for each sleep, the steps between the arming
// and the sleep before and after the patch.

// checkStepRe finds a test of the condition on a line: an if or a loop
// condition.
var checkStepRe = regexp.MustCompile(`^\s*(?:\}\s*)?(?:else\s+)?(?:if|while)\s*\(`)

// publishStepRe finds a sleeper publishing itself as the task to wake.
var publishStepRe = regexp.MustCompile(`=\s*current\s*;`)

// armSite is a call that arms the current task for a sleep.
type armSite struct {
	call  cscan.Call
	state string
}

// arms returns the calls of f that set a sleeping task state or queue the
// task with one, and the sleep calls, both in line order.
func (r *checker) arms(f *wfunc) (arms []armSite, sleeps []cscan.Call) {
	if f == nil || f.F == nil {
		return nil, nil
	}
	for _, c := range f.F.Calls {
		switch {
		case r.p.sleeps[c.Name]:
			sleeps = append(sleeps, c)
		case r.p.stateSets[c.Name] && len(c.Args) > 0:
			if st := r.p.taskState(c.Args[len(c.Args)-1]); st != "" && st != "normal" {
				arms = append(arms, armSite{call: c, state: st})
			}
		default:
			if w := r.p.waiter(c.Name); w != nil && w.Kind == "add" && w.StateArg != nil {
				if st := r.p.waiterState(w, c.Name, c.Args); st != "" {
					arms = append(arms, armSite{call: c, state: st})
				}
			}
		}
	}
	sort.SliceStable(arms, func(i, j int) bool { return arms[i].call.Line < arms[j].call.Line })
	sort.SliceStable(sleeps, func(i, j int) bool { return sleeps[i].Line < sleeps[j].Line })
	return arms, sleeps
}

// armBefore returns the last arming call before line (with queue set,
// the last that queues an entry: queuesEntry), nil if none.
func armBefore(arms []armSite, line int, queue bool) *armSite {
	var out *armSite
	for i := range arms {
		if arms[i].call.Line < line && (!queue || queuesEntry(arms[i])) {
			out = &arms[i]
		}
	}
	return out
}

// armedSteps returns the steps between an arming at line from and the
// sleep at line to: condition tests, lock releases and publications of
// current, each as its normalised text.
func (r *checker) armedSteps(f *wfunc, from, to int) []string {
	released := map[int]bool{}
	for _, c := range f.F.Calls {
		if c.Line > from && c.Line < to {
			if _, ok := r.p.unlockCall(c); ok {
				released[c.Line] = true
			}
		}
	}
	var out []string
	for l := from + 1; l < to; l++ {
		t, ok := f.lines[l]
		if !ok {
			continue
		}
		if checkStepRe.MatchString(t) || publishStepRe.MatchString(t) || released[l] {
			out = append(out, normStep(t))
		}
	}
	return out
}

// normStep normalises a step's text for comparison across versions.
func normStep(t string) string {
	return strings.Join(strings.Fields(strings.TrimLeft(strings.TrimSpace(t), "}")), " ")
}

// hasStep reports whether some line of f has step s.
func hasStep(f *wfunc, s string) bool {
	for _, t := range f.lines {
		if normStep(t) == s {
			return true
		}
	}
	return false
}

// eachArmedSleep calls visit with each sleep of a function the patch
// changes and the same sleep before the patch (in functions whose sleeps
// match in number), and both versions' armings; visit returns true to
// stop at that function.
func (r *checker) eachArmedSleep(visit func(old, nw *wfunc, oArms, nArms []armSite, os, ns cscan.Call) bool) {
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		if old == nil || nw == nil || old.F == nil || nw.F == nil {
			continue
		}
		oArms, oSleeps := r.arms(old)
		nArms, nSleeps := r.arms(nw)
		if len(oSleeps) != len(nSleeps) {
			continue
		}
		for k := range nSleeps {
			if visit(old, nw, oArms, nArms, oSleeps[k], nSleeps[k]) {
				break
			}
		}
	}
}

// checkWaiterOrder reports sleeps whose arming the patch moved after a
// step that used to follow it.
func (r *checker) checkWaiterOrder() {
	r.eachArmedSleep(func(old, nw *wfunc, oArms, nArms []armSite, os, ns cscan.Call) bool {
		oa, na := armBefore(oArms, os.Line, false), armBefore(nArms, ns.Line, false)
		if oa == nil || na == nil || os.Name != ns.Name {
			return false
		}
		// The arming or the sleep changed; else only a step between
		// them can have moved (a check now made in the loop's header).
		armChanged := nw.changed(na.call.Line) || old.changed(oa.call.Line) || nw.changed(ns.Line)
		if !armChanged && !changedWithin(nw, na.call.Line, ns.Line) && !changedWithin(old, oa.call.Line, os.Line) {
			return false
		}
		now, tested := map[string]bool{}, map[string]bool{}
		for _, s := range r.armedSteps(nw, na.call.Line, ns.Line) {
			now[s] = true
		}
		for l := na.call.Line + 1; l < ns.Line; l++ {
			if c := recheckOf(nw, l, ns); c != "" {
				tested[c] = true
			}
		}
		// A step is lost when the new version makes it elsewhere: the
		// same text, or (moved) a test of the same condition, such as
		// a loop's header now testing what the armed loop body did.
		var lost, moved []string
		for _, s := range r.armedSteps(old, oa.call.Line, os.Line) {
			c := testedCond(s)
			switch {
			case now[s] || c != "" && tested[c]:
			case hasStep(nw, s):
				lost = append(lost, s)
			case c != "" && loopTests(ns, na.call.Line, c):
				moved = append(moved, s)
			}
		}
		if !armChanged {
			lost = nil
		}
		if len(lost) > 0 && !r.stillUnderLock(nw, na, ns, lost) {
			r.reportWaiterOrder(old, nw, oa, na, ns, lost, false)
			return true
		}
		if dropped := droppedSleepGuards(oa, os, ns, tested); armChanged && len(dropped) > 0 {
			r.reportWaiterOrder(old, nw, oa, na, ns, dropped, true)
			return true
		}
		if len(moved) > 0 && !r.stillUnderLock(nw, na, ns, moved) {
			r.reportWaiterOrder(old, nw, oa, na, ns, moved, true)
			return true
		}
		return false
	})
}

// reportWaiterOrder reports arming na, now after the steps lost.
func (r *checker) reportWaiterOrder(old, nw *wfunc, oa, na *armSite, sleep cscan.Call, lost []string, dropped bool) {
	waker := "the waker"
	var wakers []*wsite
	for _, s := range nw.Sites {
		if s.Kind == siteWait && s.Q != "" {
			wakers = r.wakersOf(s.Q)
			break
		}
	}
	for _, w := range wakers {
		if w.Fn.Name != nw.Name {
			waker = w.Fn.Name + "()"
			break
		}
	}
	arm := strings.TrimSpace(nw.text(na.call.Line))
	f := report.Finding{
		Category: CategoryWaiterOrder,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: na.call.Line,
		Message: fmt.Sprintf("%s() now arms its sleep (%s) after `%s`", nw.Name, na.call.Name, lost[0]),
		Explanation: fmt.Sprintf("%s() used to set %s before `%s` and now sets it after. A wake-up that comes between the two finds the task still running and does nothing; the task then arms itself and sleeps in %s() with its condition already true, until another wake-up or forever. Set the task state (or queue the entry) before the last check, the unlock or the publication, as before.",
			nw.Name, na.state, strings.Join(lost, "`, `"), sleep.Name),
		Evidence: []string{nw.evidence(na.call.Line), nw.evidence(sleep.Line)},
		Old:      []string{old.evidence(oa.call.Line)},
	}
	f.Chain = append(f.Chain,
		report.Step{Func: nw.Name, File: nw.File, Line: na.call.Line, What: "arms the sleep after the step: " + arm},
		report.Step{Func: nw.Name, File: nw.File, Line: sleep.Line, What: "sleeps: " + strings.TrimSpace(nw.text(sleep.Line))})
	for _, w := range wakers {
		if w.Fn.Name != nw.Name {
			f.Chain = append(f.Chain, step(w, "wakes: "+w.Text()))
			break
		}
	}
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", waker, [][2]string{
		{lost[0], ""},
		{"  (task still running)", ""},
		{"", "makes the condition true"},
		{"", "wakes the task: it is running, nothing to do"},
		{arm, ""},
		{strings.TrimSpace(nw.text(sleep.Line)), ""},
		{"  sleeps with the condition true", ""},
	})...)
	if dropped {
		f.Line = sleep.Line
		f.Message = fmt.Sprintf("%s() now sleeps without re-checking `%s` once armed", nw.Name, lost[0])
		f.Explanation = fmt.Sprintf("%s() arms itself (%s) and used to test `%s` before sleeping in %s(); the test is gone. If the condition became true, and its wake-up came, before the task was armed, nothing wakes it again and it sleeps until another wake-up or forever. Keep the re-check between arming and sleeping.",
			nw.Name, na.call.Name, strings.Join(lost, "`, `"), sleep.Name)
		f.Evidence = []string{nw.evidence(na.call.Line), nw.evidence(sleep.Line)}
		f.Chain = f.Chain[:0]
		f.Chain = append(f.Chain,
			report.Step{Func: nw.Name, File: nw.File, Line: na.call.Line, What: "arms the sleep: " + arm},
			report.Step{Func: nw.Name, File: nw.File, Line: sleep.Line, What: "sleeps without the re-check: " + strings.TrimSpace(nw.text(sleep.Line))})
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", waker, [][2]string{
			{"", "makes the condition true"},
			{"", "wakes the queue: the task is not on it yet"},
			{arm, ""},
			{"(no " + lost[0] + " any more)", ""},
			{strings.TrimSpace(nw.text(sleep.Line)), ""},
			{"  sleeps with the condition true", ""},
		})...)
	}
	r.add(f)
}

// droppedSleepGuards returns the tests made after arming oa that used to
// guard the sleep os and no longer guard its new version ns: the task now
// sleeps without re-checking once it is armed.
// A test of the same condition still made between the arming and the
// sleep (tested, by testedCond: `if (!cond) break;` in place of `if
// (cond) schedule();`) is no drop.
func droppedSleepGuards(oa *armSite, os, ns cscan.Call, tested map[string]bool) []string {
	kept := map[string]bool{}
	for _, g := range ns.Guards {
		kept[g.Kind+" "+normStep(g.Cond)] = true
	}
	var out []string
	for _, g := range os.Guards {
		if g.Kind == "if" && g.Line > oa.call.Line && !kept[g.Kind+" "+normStep(g.Cond)] && !tested[condCore(g.Cond)] {
			out = append(out, "if ("+normStep(g.Cond)+")")
		}
	}
	return out
}

// changedWithin reports whether the patch changed a line of f from line
// from to line to, both included.
func changedWithin(f *wfunc, from, to int) bool {
	for l := from; l <= to; l++ {
		if f.changed(l) {
			return true
		}
	}
	return false
}

// testedCond returns the condition a check step tests, as condCore
// gives it, "" for another step (a release, a publication).
func testedCond(step string) string {
	m := checkStepRe.FindStringIndex(step)
	if m == nil {
		return ""
	}
	open := m[1] - 1
	end := cscan.MatchParen(step, open)
	if end < 0 {
		return ""
	}
	return condCore(step[open+1 : end])
}

// condCore is a condition without its sense and its marked accesses:
// the likely()/unlikely(), READ_ONCE() and smp_load_acquire() around its
// terms and the address taken for them dropped, spacing removed, and a
// negation of the whole dropped, so that `!smp_load_acquire(&w.task)` and
// `w.task` are the same test; its operators and the negations of its
// terms are kept (`!a && b` is not `a && !b`).
func condCore(c string) string {
	c = strings.Join(strings.Fields(markedReadRe.ReplaceAllString(c, "(")), "")
	for {
		// The parentheses a dropped wrapper leaves around one term.
		n := parenTermRe.ReplaceAllString(c, "$1$2")
		if n == c {
			break
		}
		c = n
	}
	for {
		n := cscan.StripParens(c)
		if strings.HasPrefix(n, "!") && !strings.HasPrefix(n, "!=") && len(splitTop(n, "&&")) == 1 && len(splitTop(n, "||")) == 1 {
			n = n[1:]
		}
		n = cscan.StripParens(n)
		if n == c {
			return c
		}
		c = n
	}
}

// markedReadRe finds the wrappers condCore drops: a condition's sense
// hints and ordering, with the address taken for a load.
var markedReadRe = regexp.MustCompile(`\b(?:likely|unlikely|READ_ONCE|smp_load_acquire|data_race)\s*\(\s*&?`)

// parenTermRe finds a term alone in parentheses that are no call's.
var parenTermRe = regexp.MustCompile(`(^|[^\w)\]])\(([\w.>\-\[\]]+)\)`)

// loopTests reports whether the header of a loop around sleep ns, above
// the arming at line arm, tests condition core c: the re-check moved from
// the armed body into the header, tested before the task is armed.
func loopTests(ns cscan.Call, arm int, c string) bool {
	for _, g := range ns.Guards {
		if g.Kind == "loop" && g.Line < arm && condCore(g.Cond) == c {
			return true
		}
	}
	return false
}

// recheckOf returns the condition core of the check step at line l of f
// when it still decides the sleep ns: it guards the sleep, or its branch
// leaves the loop or the function (`if (!cond) break;`); "" otherwise.
func recheckOf(f *wfunc, l int, ns cscan.Call) string {
	c := testedCond(f.lines[l])
	if c == "" {
		return ""
	}
	for _, g := range ns.Guards {
		if g.Line == l && g.Kind == "if" {
			return c
		}
	}
	t := codeOnly(f.lines[l])
	if i := strings.LastIndex(t, ")"); i >= 0 && exitStmtRe.MatchString(t[i+1:]) {
		return c
	}
	for k := l + 1; k < l+3; k++ {
		n, ok := f.lines[k]
		if !ok {
			continue
		}
		code := strings.TrimSpace(codeOnly(n))
		if code == "" || code == "{" {
			continue
		}
		if exitStmtRe.MatchString(code) {
			return c
		}
		break
	}
	return ""
}

// exitStmtRe matches a statement that leaves a loop or the function.
var exitStmtRe = regexp.MustCompile(`^\s*\{?\s*(?:break|return\b|goto\s)`)

// stillUnderLock reports whether the new arming na still comes before a
// lock release on the way to the sleep ns while none of the steps lost is
// a release: the steps that moved before the arming run under that lock,
// and a waker that takes it cannot run between them and the arming.
func (r *checker) stillUnderLock(nw *wfunc, na *armSite, ns cscan.Call, lost []string) bool {
	releases := map[string]bool{}
	held := false
	for _, c := range nw.F.Calls {
		if _, ok := r.p.unlockCall(c); ok {
			if c.Line > na.call.Line && c.Line < ns.Line {
				held = true
			}
			releases[normStep(nw.text(c.Line))] = true
		}
	}
	if !held {
		return false
	}
	for _, s := range lost {
		if releases[s] {
			return false
		}
	}
	return true
}

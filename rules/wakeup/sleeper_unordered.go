package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// An open-coded sleep armed with a state store that has no barrier
// (__set_current_state()) and then testing its condition before it
// sleeps. set_current_state() orders the state store before the test
// (include/linux/sched.h): a waker stores the condition and then reads
// the task's state in try_to_wake_up(). Without the barrier the test can
// read the old condition while the waker still reads TASK_RUNNING, so the
// wake-up does nothing and the task sleeps with its condition true. The
// bare form is for a test made under the lock the waker takes (sched.h
// says so); a test under any lock is left alone.

// checkUnorderedArming reports a sleep of a function's new version whose
// arming has no barrier before a condition test on its way to the sleep,
// when the patch wrote the arming, the test or the sleep, and the old
// version had no such sleep.
func (r *checker) checkUnorderedArming() {
	// A function two entries of the change show (split hunks) is
	// reported once.
	seen := map[string]bool{}
	for i := range r.pass.Change.Funcs {
		old, nw := r.oldVersion(i), r.news[i]
		if nw == nil || nw.F == nil || seen[nw.File+":"+nw.Name] || len(r.unorderedArmings(old)) > 0 {
			continue
		}
		for _, u := range r.unorderedArmings(nw) {
			if nw.changed(u.arm.call.Line) || nw.changed(u.test) || nw.changed(u.sleep.Line) {
				seen[nw.File+":"+nw.Name] = true
				r.reportUnorderedArming(nw, u)
				break
			}
		}
	}
}

// unorderedArming is a sleep armed without a barrier: the arming, the
// line of the first test after it, the sleep.
type unorderedArming struct {
	arm   armSite
	test  int
	sleep cscan.Call
}

// unorderedArmings returns the sleeps of f armed by a state store without
// a barrier and tested after it, with no full barrier between the arming
// and the test and no lock held at the test.
func (r *checker) unorderedArmings(f *wfunc) []unorderedArming {
	if f == nil || f.F == nil {
		return nil
	}
	arms, sleeps := r.arms(f)
	var out []unorderedArming
	for _, s := range sleeps {
		a := armBefore(arms, s.Line, false)
		if a == nil || !r.p.stateSets[a.call.Name] || r.p.ordering(a.call.Name) == "full" {
			continue
		}
		test := 0
		for l := a.call.Line + 1; l < s.Line && test == 0; l++ {
			if t, ok := f.lines[l]; ok && checkStepRe.MatchString(codeOnly(t)) && testsWakerState(codeOnly(t)) {
				test = l
			}
		}
		if test == 0 || r.fullBetween(f, a.call.Line, test) || r.lockOrders(f, a.call.Line, test) {
			continue
		}
		out = append(out, unorderedArming{arm: *a, test: test, sleep: s})
	}
	return out
}

// selfCheckedRe matches the tests no waker's store answers, or that
// __schedule() makes again itself: a pending signal (signal_pending_state()
// under the runqueue lock), the clock, the task's own fields; and the
// wrappers (unlikely(), READ_ONCE()) that are no calls of their own.
var selfCheckedRe = regexp.MustCompile(`\b(?:__)?(?:fatal_)?signal_pending(?:_state)?\s*\([^()]*\)|\btime_(?:after|before)(?:_eq)?\s*\([^()]*\)|\bcurrent\s*->\s*\w+|\b(?:if|while|jiffies|current|else|likely|unlikely|READ_ONCE)\b`)

// testsWakerState reports whether the test on code line t reads shared
// state beyond selfCheckedRe's terms (a member or a call): a condition a
// waker can make true. A test of locals and parameters alone reads
// nothing another CPU stores.
func testsWakerState(t string) bool {
	return sharedReadRe.MatchString(selfCheckedRe.ReplaceAllString(t, ""))
}

// sharedReadRe finds a member access or a call in a test.
var sharedReadRe = regexp.MustCompile(`->|\.\s*[A-Za-z_]|[A-Za-z_]\w*\s*\(`)

// lockOrders reports whether a lock orders f's arming at line arm before
// its test at line test: one held at either, or taken between them (a
// value read under it and tested after the unlock). The waker that takes
// that lock to store the condition cannot run between the two.
func (r *checker) lockOrders(f *wfunc, arm, test int) bool {
	if len(r.heldWithCallers(f, arm)) > 0 || len(r.heldWithCallers(f, test)) > 0 {
		return true
	}
	for _, c := range f.F.Calls {
		if c.Line > arm && c.Line < test {
			if a := r.p.locks.Classify(c); a.Op == lockmodel.Take || a.Op == lockmodel.TryTake || a.Op == lockmodel.Guard || a.Op == lockmodel.ScopedGuard {
				return true
			}
		}
	}
	return false
}

// fullBetween reports whether a call between lines from and to (both
// excluded, the line of to included) is a full barrier or fully ordered.
func (r *checker) fullBetween(f *wfunc, from, to int) bool {
	for _, c := range f.F.Calls {
		if c.Line > from && c.Line <= to && r.p.ordering(c.Name) == "full" {
			return true
		}
	}
	return false
}

// reportUnorderedArming reports sleep u of nw with the interleaving that
// loses its wake-up.
func (r *checker) reportUnorderedArming(nw *wfunc, u unorderedArming) {
	armText := strings.TrimSpace(nw.text(u.arm.call.Line))
	testText := normLine(nw.text(u.test))
	sleepText := strings.TrimSpace(nw.text(u.sleep.Line))
	f := report.Finding{
		Category: CategoryWaiterOrder,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: u.arm.call.Line,
		Key:      "task:current",
		Message:  fmt.Sprintf("%s() sets the sleeping state without a barrier before the test at line %d: a wake-up between them is lost", u.arm.call.Name, u.test),
		Evidence: []string{nw.evidence(u.arm.call.Line), nw.evidence(u.test), nw.evidence(u.sleep.Line)},
		Chain: []report.Step{
			{Func: nw.Name, File: nw.File, Line: u.arm.call.Line, What: "sets the task state, no barrier: " + armText},
			{Func: nw.Name, File: nw.File, Line: u.test, What: "tests the condition: " + testText},
			{Func: nw.Name, File: nw.File, Line: u.sleep.Line, What: "sleeps: " + sleepText},
		},
	}
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", "the waker", [][2]string{
		{armText, ""},
		{"  (state store still in the store buffer)", ""},
		{testText + ": old value, go on to sleep", ""},
		{"", "stores the condition"},
		{"", "wake-up: reads the task's state, TASK_RUNNING: nothing to do"},
		{sleepText + ": sleeps with the condition true", ""},
	})...)
	f.Explanation = fmt.Sprintf("%s() stores the task state with %s(), which has no barrier, and then tests its condition (%s) before %s. A waker stores the condition and then reads the task's state (try_to_wake_up() orders the two); without a full barrier on the sleeper's side its state store can still be in the store buffer when it reads the old condition, the waker sees TASK_RUNNING and does nothing, and the task sleeps though its condition is true. set_current_state() has the barrier (include/linux/sched.h); __set_current_state() is for a test made under the lock the waker takes, and no lock is held at this test.",
		nw.Name, u.arm.call.Name, testText, sleepText)
	r.add(f)
}

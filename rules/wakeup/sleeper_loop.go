package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// This file checks that an open-coded sleep loop arms the task in every
// round. schedule() returns the task in TASK_RUNNING, and a wake-up takes
// a prepare_to_wait() entry off its queue (autoremove_wake_function()): a
// loop that sets the sleeping state, or queues its entry, once before it
// sleeps properly in its first round only. In every later round the
// condition check is made by a running task and schedule() returns at
// once: the loop spins until the condition holds, and a wake-up it waits
// for is no longer needed to end a round (set_current_state() moved out
// of "for (;;)" in a kthread's stop loop burns a CPU until
// kthread_stop()).

// loopOf returns the innermost loop guard of c (nil when c is in no loop).
func loopOf(c cscan.Call) *cscan.Guard {
	for i := len(c.Guards) - 1; i >= 0; i-- {
		if c.Guards[i].Kind == "loop" {
			return &c.Guards[i]
		}
	}
	return nil
}

// inLoop reports whether c is inside the loop guard l, its header
// included (the init and step clauses of "for (set_current_state(S); ...;
// set_current_state(S))" arm each round too).
func inLoop(c cscan.Call, l *cscan.Guard) bool {
	if c.Line == l.Line {
		return true
	}
	for _, g := range c.Guards {
		if g.Kind == "loop" && g.Line == l.Line {
			return true
		}
	}
	return false
}

// armsInLoop reports whether some arming of arms is inside loop l; with
// queue set, only an arming that queues an entry (prepare_to_wait*(),
// not set_current_state()) counts.
func armsInLoop(arms []armSite, l *cscan.Guard, queue bool) bool {
	for _, a := range arms {
		if inLoop(a.call, l) && (!queue || queuesEntry(a)) {
			return true
		}
	}
	return false
}

// queuesEntry reports whether arming a queues the task's wait entry
// (prepare_to_wait*(): an entry a wake-up takes off the queue) rather
// than only setting its state.
func queuesEntry(a armSite) bool {
	return a.call.Name != "set_current_state" && a.call.Name != "__set_current_state"
}

// checkArmingLeftLoop reports sleeps in a loop whose arming, done in each
// round before the patch, now happens once before the loop.
func (r *checker) checkArmingLeftLoop() {
	r.eachArmedSleep(func(old, nw *wfunc, oArms, nArms []armSite, os, ns cscan.Call) bool {
		ol, nl := loopOf(os), loopOf(ns)
		if os.Name != ns.Name || ol == nil || nl == nil {
			return false
		}
		// The task state, or the queued entry: a wake-up takes a
		// prepare_to_wait() entry off the queue even when the state is
		// still set in each round.
		for _, queue := range []bool{false, true} {
			if !armsInLoop(oArms, ol, queue) || armsInLoop(nArms, nl, queue) {
				continue
			}
			na := armBefore(nArms, nl.Line, queue)
			if na == nil || !nw.changed(na.call.Line) {
				continue
			}
			r.reportArmingLeftLoop(old, nw, na, ns, nl)
			return true
		}
		return false
	})
}

// reportArmingLeftLoop reports arming na, now made once before loop l
// whose rounds sleep in ns.
func (r *checker) reportArmingLeftLoop(old, nw *wfunc, na *armSite, ns cscan.Call, l *cscan.Guard) {
	arm := strings.TrimSpace(nw.text(na.call.Line))
	sleep := strings.TrimSuffix(strings.TrimSpace(nw.text(ns.Line)), ";")
	loop := strings.TrimSpace(nw.text(l.Line))
	waker := "the waker"
	for _, s := range nw.Sites {
		if s.Kind != siteWait || s.Q == "" {
			continue
		}
		for _, w := range r.wakersOf(s.Q) {
			if w.Fn.Name != nw.Name {
				waker = w.Fn.Name + "()"
				break
			}
		}
		break
	}
	what, off := "sets the task state ("+na.state+")", ""
	if na.call.Name != "set_current_state" && na.call.Name != "__set_current_state" {
		what, off = "queues its entry with "+na.call.Name+"()", " (and the wake-up took the entry off the queue)"
	}
	f := report.Finding{
		Category: CategoryRearm,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: na.call.Line,
		Message: fmt.Sprintf("%s() now arms its sleep (%s) once before the loop instead of in each round", nw.Name, na.call.Name),
		Explanation: fmt.Sprintf("%s() %s before `%s` instead of at the top of each round. %s() returns with the task running%s, so only the first round sleeps: every later round checks its condition as a running task and %s() returns at once. The loop spins until the condition holds instead of waiting for the wake-up. Arm the task inside the loop, before the check, as before.",
			nw.Name, what, loop, ns.Name, off, ns.Name),
		Evidence: []string{nw.evidence(na.call.Line), nw.evidence(l.Line), nw.evidence(ns.Line)},
	}
	for _, a := range r.oldArmsIn(old) {
		f.Old = append(f.Old, old.evidence(a.call.Line))
	}
	f.Chain = append(f.Chain,
		report.Step{Func: nw.Name, File: nw.File, Line: na.call.Line, What: "arms the sleep once: " + arm},
		report.Step{Func: nw.Name, File: nw.File, Line: l.Line, What: "loops: " + loop},
		report.Step{Func: nw.Name, File: nw.File, Line: ns.Line, What: "sleeps in each round: " + sleep})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", waker, [][2]string{
		{arm, ""},
		{"round 1: condition false", ""},
		{sleep + ": sleeps", ""},
		{"", "wakes the task (now running)"},
		{"round 2: condition still false", ""},
		{sleep + ": returns at once", ""},
		{"  spins, never sleeping again", ""},
	})...)
	r.add(f)
}

// oldArmsIn returns the armings of old that were inside a loop.
func (r *checker) oldArmsIn(old *wfunc) []armSite {
	arms, _ := r.arms(old)
	var out []armSite
	for _, a := range arms {
		if loopOf(a.call) != nil {
			out = append(out, a)
		}
	}
	return out
}

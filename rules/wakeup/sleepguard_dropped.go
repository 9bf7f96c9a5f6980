package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// An open-coded sleep (set_current_state(); if (...) schedule()) sleeps
// only while every term of the if around schedule() holds: each term is
// the negation of an event that ends the wait. A term the patch drops
// between the state change and schedule() is an event the waiter no
// longer checks after it announced its sleep: a waker that makes it true
// and wakes the task before schedule() finds the task still running, its
// wake-up is spent, and the task sleeps through the event. kthread_stop()
// sets the stop flag and wakes the thread with wake_up_process(), which
// wakes no queue entry, so a wait_woken() that stops testing
// kthread_should_stop() hangs kthread_stop().

// maxStopHelperLines bounds a helper read as a stop test
// (is_kthread_should_stop()).
const maxStopHelperLines = 8

// checkSleepGuards reports, in each changed function, a term that the
// patch dropped from the condition of an open-coded sleep when the term
// tests a stop request (directly or through a small helper) or a member
// that a waker of the function's queue stores before waking it.
func (r *checker) checkSleepGuards() {
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		if old == nil || nw == nil || old.F == nil || nw.F == nil {
			continue
		}
		oc, nc := r.sleepCalls(old), r.sleepCalls(nw)
		for k := 0; k < len(oc) && k < len(nc); k++ {
			if oc[k].Name != nc[k].Name {
				break
			}
			r.checkSleepGuard(old, nw, oc[k], nc[k])
		}
	}
}

// sleepCalls returns f's calls that put the task to sleep, in order.
func (r *checker) sleepCalls(f *wfunc) []cscan.Call {
	var out []cscan.Call
	for _, c := range f.F.Calls {
		if r.p.sleeps[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// sleepTerm is one test of an open-coded sleep: text as written, and
// event, what makes the task stay awake (the negation of a term of the if
// around the sleep call; a leaving if's term itself).
type sleepTerm struct {
	text, event string
}

// sleepTerms returns the tests that keep the task awake at sleep call c
// of f: the terms of the if conditions around c, and the terms of the
// conditions of the ifs that leave the sleep (break, return, goto,
// continue) between the task state set at line set (0: none known) and
// c. line is the last line of those tests the patch changed, or the
// innermost guard's when it changed none.
func sleepTerms(f *wfunc, c cscan.Call, set int) (terms []sleepTerm, line int) {
	changed := 0
	for _, g := range c.Guards {
		if g.Kind != "if" {
			continue
		}
		for _, t := range splitTop(g.Cond, "&&") {
			terms = append(terms, sleepTerm{text: t, event: negate(t)})
		}
		line = g.Line
		if f.changed(g.Line) {
			changed = g.Line
		}
	}
	if set > 0 && f.F.Body != nil {
		cscan.Inspect(f.F.Body, func(s cscan.Stmt) {
			is, ok := s.(*cscan.IfStmt)
			if !ok || is.Line <= set || is.Line >= c.Line || !leaves(is.Then, c.Line) {
				return
			}
			for _, t := range splitTop(is.Cond, "||") {
				terms = append(terms, sleepTerm{text: t, event: strings.TrimSpace(t)})
			}
			if f.changed(is.Line) && is.Line > changed {
				changed = is.Line
			}
		})
	}
	if changed > 0 {
		line = changed
	}
	return terms, line
}

// negate returns the negation of condition term t as text: a leading !
// dropped when it covers the whole term, else !( ).
func negate(t string) string {
	t = cscan.StripParens(strings.TrimSpace(t))
	if rest := strings.TrimSpace(strings.TrimPrefix(t, "!")); rest != t && !strings.HasPrefix(rest, "!") &&
		len(splitTop(rest, "||")) == 1 && len(splitTop(rest, "&&")) == 1 {
		return rest
	}
	return "!(" + t + ")"
}

// leaves reports whether branch s ends in a break, return, goto or
// continue and does not hold the sleep call at line sleep: an if taking
// it does not go on to sleep.
func leaves(s cscan.Stmt, sleep int) bool {
	if b, ok := s.(*cscan.Block); ok {
		if len(b.Stmts) == 0 || b.Line <= sleep && (b.EndLine == 0 || sleep <= b.EndLine) {
			return false
		}
		s = b.Stmts[len(b.Stmts)-1]
	}
	switch s.(type) {
	case *cscan.BreakStmt, *cscan.ReturnStmt, *cscan.GotoStmt, *cscan.ContinueStmt:
		return true
	}
	return false
}

// checkSleepGuard compares one sleep call's guard in the two versions.
func (r *checker) checkSleepGuard(old, nw *wfunc, o, n cscan.Call) {
	setLine := func(f *wfunc, c cscan.Call) int {
		if s := r.stateSetBefore(f, c.Line); s != nil {
			return s.Line
		}
		return 0
	}
	oTerms, _ := sleepTerms(old, o, setLine(old, o))
	nTerms, gLine := sleepTerms(nw, n, setLine(nw, n))
	if gLine == 0 || !nw.changed(gLine) {
		return
	}
	set := r.stateSetBefore(nw, gLine)
	if set == nil {
		return
	}
	norm := func(t string) string {
		return strings.Join(strings.Fields(cscan.StripParens(strings.TrimSpace(t))), "")
	}
	kept := map[string]bool{}
	var nText, oText []string
	for _, t := range nTerms {
		kept[norm(t.event)] = true
		nText = append(nText, t.text)
	}
	for _, t := range oTerms {
		oText = append(oText, t.text)
	}
	if newCallTakesOver(strings.Join(nText, " && "), strings.Join(oText, " && ")) {
		return
	}
	// The file's task wake-ups, read once: the wakers of a sleep on no
	// queue.
	var fileWakes []*wsite
	read := false
	for _, t := range oTerms {
		if kept[norm(t.event)] {
			continue
		}
		event := t.event
		if stillTested(nw, set.Line, n.Line, event) {
			continue
		}
		if stop := r.stopTest(event, old.File); stop != "" {
			r.reportSleepGuard(old, nw, o, n, gLine, *set, t.event, stop+"() is made true by a stop request, and kthread_stop() wakes the thread itself with wake_up_process(), not through a queue entry", nil)
			return
		}
		queued := false
		for _, s := range nw.Sites {
			if s.Kind != siteWait || s.Q == "" {
				continue
			}
			queued = true
			if why, w := r.storingWaker(s.Q, nw.Name, event); w != nil {
				r.reportSleepGuard(old, nw, o, n, gLine, *set, t.event, why, w)
				return
			}
		}
		if !queued && r.tree != nil {
			// A sleep on no queue is ended by wake_up_process() of the
			// task: its wakers are the task wake-ups of the file.
			if !read {
				fileWakes, read = r.fileTaskWakes(nw), true
			}
			if why, w := r.storingWakerOf(fileWakes, nw.Name, event); w != nil {
				r.reportSleepGuard(old, nw, o, n, gLine, *set, t.event, why, w)
				return
			}
		}
	}
}

// stateSetBefore returns the last call of f before line that sets a
// sleeping task state (set_current_state(), prepare_to_wait(); not a
// return to TASK_RUNNING on an exit): the guard then re-tests after the
// sleep was announced. nil when there is none.
func (r *checker) stateSetBefore(f *wfunc, line int) *cscan.Call {
	var set *cscan.Call
	for i, c := range f.F.Calls {
		running := len(c.Args) > 0 && strings.Contains(c.Args[len(c.Args)-1], "TASK_RUNNING")
		if c.Line < line && !running && (r.p.stateSets[c.Name] || strings.HasPrefix(c.Name, "prepare_to_wait")) {
			set = &f.F.Calls[i]
		}
	}
	return set
}

// stillTested reports whether the new version still tests event between
// the state change at from and the sleep at to, in any form: an early
// exit of its own, a condition rewritten (De Morgan), a member read with
// or without READ_ONCE() or another plain read (memberReads). A stop test
// counts by its call, a member test by the members it reads.
func stillTested(f *wfunc, from, to int, event string) bool {
	var calls []string
	for _, m := range condCallRe.FindAllStringSubmatch(event, -1) {
		if !trivialCalls[m[1]] && !memberReads[m[1]] {
			calls = append(calls, m[1]+"(")
		}
	}
	fields := fieldsIn(event)
	if len(calls) == 0 && len(fields) == 0 {
		return false
	}
	for l := from; l <= to; l++ {
		t := codeOnly(f.lines[l])
		for _, c := range calls {
			if strings.Contains(t, c) {
				return true
			}
		}
		if len(calls) > 0 {
			continue
		}
		for _, x := range fieldsIn(t) {
			if contains(fields, x) {
				return true
			}
		}
	}
	return false
}

// memberReads are calls that read the member they are given and nothing
// else: a test written with another of them, or with none, still tests
// that member (whether the read is ordered is the barrier checks'
// business).
var memberReads = map[string]bool{"smp_load_acquire": true, "atomic_read": true, "atomic_long_read": true,
	"atomic64_read": true, "test_bit": true, "data_race": true}

// stopTest returns the stop test (kthread_should_stop()) a condition term
// calls, directly or through a small helper of the patch's old side or of
// the tree; "" if none.
func (r *checker) stopTest(term, file string) string {
	if s := r.stopCall(term); s != "" {
		return s
	}
	for _, m := range condCallRe.FindAllStringSubmatch(term, -1) {
		var body *cscan.Func
		for _, o := range r.olds {
			if o != nil && o.F != nil && o.Name == m[1] {
				body = o.F
			}
		}
		if body == nil && r.pass.Index != nil {
			if fns := cscan.PickDefs(r.pass.Index.Funcs(m[1]), file); len(fns) > 0 {
				body = fns[0]
			}
		}
		if body == nil || body.End-body.Start > maxStopHelperLines {
			continue
		}
		for _, c := range body.Calls {
			if r.p.stopConds[c.Name] {
				return c.Name
			}
		}
	}
	return ""
}

// reportSleepGuard makes the risk of a test dropped from a sleep's guard;
// term is the event it tested.
func (r *checker) reportSleepGuard(old, nw *wfunc, o, n cscan.Call, gLine int, set cscan.Call, term, why string, w *wsite) {
	term = strings.Join(strings.Fields(term), " ")
	f := report.Finding{
		Category: CategoryWaiterCond,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: gLine,
		Message:  fmt.Sprintf("%s() no longer tests `%s` before it sleeps in %s()", nw.Name, term, n.Name),
		Evidence: []string{nw.evidence(gLine), nw.evidence(n.Line)},
	}
	for l := o.Line; l >= o.Line-2 && l > 0; l-- {
		if old.changed(l) {
			f.Old = append(f.Old, old.evidence(l))
		}
	}
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: gLine, What: "sleeps without testing " + term})
	waker := "the waker"
	if w != nil {
		waker = w.Fn.Name + "()"
		f.Chain = append(f.Chain, step(w, "wakes for it: "+w.Text()))
	}
	woken := "wakes the task: it is running, nothing to do"
	if strings.HasPrefix(set.Name, "prepare_to_wait") {
		woken = "wakes the queue: the task is not queued yet, nobody is woken"
	}
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", waker, [][2]string{
		{"tests for the event earlier: not yet", ""},
		{"", "makes the event true (the dropped term)"},
		{"", woken},
		{set.Name + "(): announces the sleep", ""},
		{"no longer re-tests the event", ""},
		{n.Name + "(): sleeps through the event", ""},
	})...)
	f.Explanation = fmt.Sprintf("The old %s() re-tested, after the task set its sleep state and before %s(), the event `%s`; %s. The new code no longer tests it there: a waker that made it true and woke the task just before the state change found the task running, and the task now sleeps through the event with nothing left to wake it. Keep the test between the state change and %s().",
		nw.Name, n.Name, term, why, n.Name)
	r.add(f)
}

package wakeup

import (
	"fmt"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// This file decides a task wake-up moved above the store its task checks
// (taskwake_removed.go has the task wake-ups): wake_up_process() (or a helper that
// makes it, blk_wake_io_task()) that used to follow the store of what the
// sleeping task re-checks (the work published with llist_add(), a
// hand-off pointer cleared) now comes first. The task wakes, sees the old
// value, sleeps again, and the store that follows wakes nobody.

// checkTaskWakeOrder compares each task wake-up kept by the patch with
// the stores around it before and after.
func (r *checker) checkTaskWakeOrder() {
	for i, nw := range r.news {
		ow := r.olds[i]
		if ow == nil || nw == nil {
			continue
		}
		olds := r.taskWakesOf(ow)
		for _, n := range r.taskWakesOf(nw) {
			for _, o := range olds {
				if lockctx.CallText(o.call) == lockctx.CallText(n.call) {
					r.taskWakeMovedEarlier(ow, nw, o, n)
					break
				}
			}
		}
	}
}

// storesPassed returns the stores of nw after the wake-up at line nl that
// stood before the old wake-up at line ol: moved lines (changed on both
// sides, the same text) and, when the wake-up itself moved, unchanged
// lines that used to come before it.
func (r *checker) storesPassed(ow, nw *wfunc, ol, nl int) []int {
	before := map[string]bool{}
	for l, t := range ow.lines {
		if l < ol && ow.changed(l) {
			before[normLine(t)] = true
		}
	}
	m := r.maps[nw.File]
	var lines []int
	for l := range nw.lines {
		if l > nl && isStore(nw.lines[l]) {
			lines = append(lines, l)
		}
	}
	sort.Ints(lines)
	var out []int
	for _, l := range lines {
		if nw.changed(l) {
			if before[normLine(nw.lines[l])] {
				out = append(out, l)
			}
			continue
		}
		if m == nil || !nw.changed(nl) {
			continue
		}
		if o, ok := m.newToOld[l]; ok && o > 0 && o < ol {
			out = append(out, l)
		}
	}
	return out
}

// taskWakeMovedEarlier reports the task wake-up n (old o) now issued
// before a store that used to precede it, when a sleeper of that state is
// known.
func (r *checker) taskWakeMovedEarlier(ow, nw *wfunc, o, n taskWake) {
	// A deferred wake-up counts at the add (the task may already sit on
	// another wake_q, whose flush can wake it at once) and at the flush
	// of its own wake_q: a store moved past either comes too late.
	ol, nl := o.call.Line, n.call.Line
	passed := r.storesPassed(ow, nw, ol, nl)
	if len(passed) == 0 {
		ol, nl = r.wakesAt(ow, o), r.wakesAt(nw, n)
		passed = r.storesPassed(ow, nw, ol, nl)
	}
	if len(passed) == 0 {
		return
	}
	store := strings.TrimSpace(nw.text(passed[0]))
	sleeper, sl := r.taskSleeper(ow, o, store)
	if sleeper == nil {
		return
	}
	what := lockctx.CallText(n.call)
	if n.via != nil {
		what += " (which calls " + strings.TrimSpace(n.via.text(n.line)) + ")"
	}
	if nl != n.call.Line {
		what += ", woken by " + strings.TrimSpace(nw.text(nl))
	}
	f := report.Finding{
		Category: CategoryStateOrder,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: n.call.Line,
		Message:  fmt.Sprintf("task %s now woken before `%s`", n.task, store),
		Evidence: []string{nw.evidence(n.call.Line), nw.evidence(passed[0])},
		Old:      []string{ow.evidence(o.call.Line)},
	}
	f.Chain = append(f.Chain,
		report.Step{Func: nw.Name, File: nw.File, Line: nl, What: "wakes the task first: " + what},
		report.Step{Func: nw.Name, File: nw.File, Line: passed[0], What: "stores only now: " + store},
		report.Step{Func: sleeper.Name, File: sleeper.File, Line: sl, What: "re-checks and sleeps: " + strings.TrimSpace(sleeper.text(sl))})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", sleeper.Name+"()", [][2]string{
		{what, ""},
		{"", "wakes, re-checks: nothing yet"},
		{"", strings.TrimSpace(sleeper.text(sl))},
		{store, ""},
		{"  (no wake-up follows)", "sleeps with the state set"},
	})...)
	f.Explanation = fmt.Sprintf("%s() used to store `%s` before it woke task %s and now wakes it first. %s() re-checks that state when woken (%s:%d): it can run in between, see the old value and sleep again, and nothing wakes it after the store. Store first, then wake, as before.",
		nw.Name, store, n.task, sleeper.Name, sleeper.File, sl)
	r.add(f)
}

// wakesAt returns the line of f where task wake-up w is sure to have
// taken effect: the call itself, or for a deferred one (wake_q_add())
// the first flush of its wake_q after it (wake_up_q()). The add itself
// may already wake the task: kernel/sched/core.c says wake_q_add() must
// be used as if it were wake_up_process(), since a task already on
// another wake_q is woken by that one's flush.
func (r *checker) wakesAt(f *wfunc, w taskWake) int {
	row := r.p.taskWakers[w.call.Name]
	if w.via != nil || row == nil || !row.Deferred || f.F == nil || len(w.call.Args) == 0 {
		return w.call.Line
	}
	q := strings.TrimSpace(w.call.Args[0])
	for _, c := range f.F.Calls {
		if c.Line > w.call.Line && r.p.wakeQFlush[c.Name] && hasArg(c.Args, q) {
			return c.Line
		}
	}
	return w.call.Line
}

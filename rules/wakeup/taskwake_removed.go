package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// This file decides a wake-up of a task removed: a kthread or worker that
// sleeps open-coded (set_current_state(); check; schedule()) is woken by
// wake_up_process() of its task after the state it checks is stored.
// Removing that call, directly or as the call of a small helper that
// makes it (scsi_eh_wakeup()), leaves the task asleep with its work
// queued unless another wake-up of the same task covers the path.

// taskWake is a wake-up of one task reached from a call: the task waker
// itself, or a small helper whose body wakes a task.
type taskWake struct {
	call cscan.Call
	task string // the task expression, as the waking call spells it
	via  *wfunc // the helper, nil for a direct wake-up
	line int    // the wake-up's line (in the helper when via != nil)
}

// taskWakesOf returns f's task wake-ups, direct and through helpers.
func (r *checker) taskWakesOf(f *wfunc) []taskWake {
	if f == nil || f.F == nil {
		return nil
	}
	var out []taskWake
	for _, c := range f.F.Calls {
		if row := r.p.taskWakers[c.Name]; row != nil {
			if row.Task < len(c.Args) {
				out = append(out, taskWake{call: c, task: strings.TrimSpace(c.Args[row.Task]), line: c.Line})
			}
			continue
		}
		if h, l, task := r.taskWakeHelper(c, f.File); h != nil {
			out = append(out, taskWake{call: c, task: task, via: h, line: l})
		}
	}
	return out
}

// taskWakeHelper returns the tree helper called by c when it is small
// (maxWrapperLines * 2) and wakes a task, with the wake-up's line and
// task.
func (r *checker) taskWakeHelper(c cscan.Call, file string) (*wfunc, int, string) {
	for _, h := range r.smallHelpers(c, file) {
		for _, hc := range h.F.Calls {
			if row := r.p.taskWakers[hc.Name]; row != nil && !row.Deferred && row.Task < len(hc.Args) {
				return h, hc.Line, strings.TrimSpace(hc.Args[row.Task])
			}
		}
	}
	return nil, 0, ""
}

// smallHelpers returns the tree's views of the definitions call c (made
// in file) may reach when they are small (maxWrapperLines * 2): helpers
// whose one job a caller's call stands for. None for an inert call or a
// call through a member.
func (r *checker) smallHelpers(c cscan.Call, file string) []*wfunc {
	if r.inert(c) || strings.Contains(c.Name, "->") {
		return nil
	}
	return r.smallTreeFuncs(c.Name, file, 2*maxWrapperLines)
}

// checkTaskWakes reports task wake-ups the patch removed.
func (r *checker) checkTaskWakes() {
	for i, nw := range r.news {
		ow := r.olds[i]
		if ow == nil || nw == nil {
			continue
		}
		left := map[string]int{}
		for _, w := range r.taskWakesOf(nw) {
			left[lockctx.CallText(w.call)]++
		}
		for _, o := range r.taskWakesOf(ow) {
			t := lockctx.CallText(o.call)
			if left[t] > 0 {
				left[t]--
				continue
			}
			if !ow.changed(o.call.Line) || r.taskWokenElsewhere(nw, o) {
				continue
			}
			r.reportTaskWakeRemoved(ow, nw, o)
		}
	}
}

// taskWokenElsewhere reports whether the patch's new code wakes the same
// task (by its last member or name) in nw or another changed function, or
// adds another task wake-up in nw.
func (r *checker) taskWokenElsewhere(nw *wfunc, o taskWake) bool {
	last := keyLast(lockKey(o.task))
	for _, f := range r.news {
		if f == nil {
			continue
		}
		for _, w := range r.taskWakesOf(f) {
			// A task wake-up the patch adds in the same function
			// replaces the removed one (wake_q_add -> wake_q_add_safe
			// of a saved reference); the ordering checks judge it.
			if f == nw && f.changed(w.call.Line) && !r.siblingTask(nw, o.task, w.task) || keyLast(lockKey(w.task)) == last && (f == nw || f.changed(w.call.Line)) {
				return true
			}
		}
	}
	return false
}

// siblingMember reports whether two expressions are different members of
// one object (wc->endio_thread and wc->flush_thread): two tasks, or two
// objects a helper wakes, of which one never stands for the other.
func siblingMember(a, b string) bool {
	a, b = normLvalue(stripAddr(a)), normLvalue(stripAddr(b))
	ia, ib := strings.LastIndexAny(a, ">."), strings.LastIndexAny(b, ">.")
	if ia <= 0 || ib <= 0 || a == b {
		return false
	}
	return a[:ia] == b[:ib] && a[ia+1:] != b[ib+1:]
}

// siblingTask reports whether task expression b, added in nw, names
// another task than a, which it replaced: a sibling member of the same
// object (siblingMember) whose old member the patched file still uses (a
// member renamed throughout is the same task under a new name).
func (r *checker) siblingTask(nw *wfunc, a, b string) bool {
	if !siblingMember(a, b) || r.tree == nil {
		return false
	}
	text, err := r.tree.read(r.tree.relPath(nw.File))
	return err == nil && memberUse(wakeMember(a)).MatchString(text)
}

// taskSleeper finds the open-coded sleeper a task wake-up serves: a
// function of the waker's file or the helper's that sets a task state and
// schedules. It prefers one that reads what the waker stored.
func (r *checker) taskSleeper(ow *wfunc, o taskWake, store string) (*wfunc, int) {
	if r.tree == nil {
		return nil, 0
	}
	files := []string{ow.File}
	if o.via != nil && o.via.File != ow.File {
		files = append(files, o.via.File)
	}
	want := map[string]bool{}
	for _, m := range plainStoreRe.FindAllStringSubmatch(store, -1) {
		want[m[1]] = true
	}
	for t := range stateTokens(store) {
		want[t] = true
	}
	var first *wfunc
	firstLine := 0
	for _, path := range files {
		file := r.pass.Index.File(path)
		if file == nil {
			continue
		}
		for _, fn := range file.Funcs {
			if r.inPatch[path+":"+fn.Name] || fn.Name == ow.Name {
				continue
			}
			v := r.tree.view(fn)
			line := openSleep(r, v)
			if line == 0 {
				continue
			}
			for _, t := range v.lines {
				for _, id := range identWords(t) {
					if want[id] {
						return v, line
					}
				}
			}
			if first == nil {
				first, firstLine = v, line
			}
		}
	}
	return first, firstLine
}

// openSleep returns the line of f's open-coded sleep (a task state set,
// then a schedule), 0 if none.
func openSleep(r *checker, f *wfunc) int {
	if f.F == nil {
		return 0
	}
	state := false
	for _, c := range f.F.Calls {
		switch {
		case r.p.stateSets[c.Name]:
			state = true
		case r.p.sleeps[c.Name] && state:
			return c.Line
		}
	}
	return 0
}

// reportTaskWakeRemoved reports the removed task wake-up o: a risk when
// the path before it stores state and a sleeper of that state is known,
// else a note.
func (r *checker) reportTaskWakeRemoved(ow, nw *wfunc, o taskWake) {
	store := sharedStoreBefore(ow, o.call.Line)
	if store == "" {
		// "if (list_empty(&q)) wake_up_process(t); list_add(x, &q);"
		// under the lock the sleeper checks with: the wake-up announces
		// the store that follows it.
		store = storeRightAfter(ow, o.call.Line)
	}
	what := lockctx.CallText(o.call)
	if o.via != nil {
		what += " (which calls " + strings.TrimSpace(o.via.text(o.line)) + ")"
	}
	f := report.Finding{
		Category: CategoryRemoved,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: r.newPosOf(nw, o.call.Line),
		Message: fmt.Sprintf("wake-up of task %s removed from %s()", o.task, nw.Name),
		Old:     []string{ow.evidence(o.call.Line)},
		Explanation: fmt.Sprintf("%s() no longer calls %s. Check that the task it woke is still woken on this path (by another wake-up, or because what it waits for cannot change here).",
			nw.Name, what),
	}
	if f.Line == 0 {
		f.Line = o.call.Line
	}
	f.Chain = append(f.Chain, report.Step{Func: ow.Name, File: ow.File, Line: o.call.Line, What: "wake-up removed: " + what})
	if o.via != nil {
		f.Chain = append(f.Chain, report.Step{Func: o.via.Name, File: o.via.File, Line: o.line, What: "wakes the task: " + strings.TrimSpace(o.via.text(o.line))})
	}
	sleeper, sl := r.taskSleeper(ow, o, store)
	if store != "" && sleeper != nil {
		f.Severity = report.SeverityRisk
		f.Chain = append(f.Chain, report.Step{Func: sleeper.Name, File: sleeper.File, Line: sl, What: "sleeps until woken: " + strings.TrimSpace(sleeper.text(sl))})
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", sleeper.Name+"()", [][2]string{
			{"", "set_current_state(...); nothing to do"},
			{store, ""},
			{"(no " + o.call.Name + "() any more)", ""},
			{"", strings.TrimSpace(sleeper.text(sl))},
			{"", "  sleeps with the work there"},
		})...)
		f.Explanation = fmt.Sprintf("%s() stores `%s` and no longer wakes task %s (%s). %s() sleeps open-coded at %s:%d until that task is woken; nothing else on this path wakes it, so the work just stored waits until an unrelated wake-up, or forever. Keep the wake-up after the store.",
			nw.Name, store, o.task, what, sleeper.Name, sleeper.File, sl)
	}
	r.add(f)
}

// storeRightAfter returns the store of shared state among the few code
// lines after line in f, before anything else that ends its block; "" if
// none.
func storeRightAfter(f *wfunc, line int) string {
	fl := flowOf(f)
	for l, seen := line+1, 0; seen < 3 && l <= line+maxBlankLines; l++ {
		t, ok := f.lines[l]
		if !ok {
			continue
		}
		c := strings.TrimSpace(codeOnly(t))
		if c == "" {
			continue
		}
		if endsStraightLine(c) || !fl.reaches(line, l) {
			return ""
		}
		if isStore(t) {
			return strings.TrimSpace(t)
		}
		seen++
	}
	return ""
}

// endsStraightLine reports whether a line of code ends the straight line
// of code it follows (a block's end, an else, a case, a jump).
func endsStraightLine(c string) bool {
	for _, p := range []string{"}", "else", "case ", "default:", "return", "goto", "break", "continue"} {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}

// sharedStoreBefore returns the nearest line of f before line that stores
// shared state: a member, bit, list or atomic store, or an assignment to a
// variable f does not declare. "" if none.
func sharedStoreBefore(f *wfunc, line int) string {
	start := 0
	if f.F != nil {
		start = f.F.BodyStart
	}
	declared := declaredNames(f)
	for l := line - 1; l > start; l-- {
		t, ok := f.lines[l]
		if !ok {
			continue
		}
		if isStore(t) {
			return strings.TrimSpace(t)
		}
		for _, m := range plainStoreRe.FindAllStringSubmatch(codeOnly(t), -1) {
			if !declared[m[1]] && (f.vt == nil || !f.vt.locals[m[1]]) {
				return strings.TrimSpace(t)
			}
		}
	}
	return ""
}

// declRe finds a declared name: a type (or "*") then the name, before a
// ";", "=", "," or ")" (a local or a parameter; "x = y;" has no type).
var declRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\**\s*\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?[;=,)]`)

// notTypes are words declRe may take for a type that are not one.
var notTypes = map[string]bool{"return": true, "else": true, "goto": true, "case": true, "sizeof": true}

// declaredNames returns the names f's text declares (locals, parameters).
func declaredNames(f *wfunc) map[string]bool {
	out := map[string]bool{}
	for _, t := range f.lines {
		for _, m := range declRe.FindAllStringSubmatch(codeOnly(t), -1) {
			if !notTypes[m[1]] {
				out[m[2]] = true
			}
		}
	}
	return out
}

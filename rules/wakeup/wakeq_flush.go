package wakeup

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A wake_q defers wake-ups: wake_q_add() queues a task (taking a
// reference) and the wake-up happens only at wake_up_q(), usually after
// the lock is dropped. A function that declares its own wake_q
// (DEFINE_WAKE_Q) must flush it on every path out once it may have added
// a task: a return between the add and the flush loses the wake-up (the
// task sleeps on with its condition true; the next wake_q_add() of it by
// anyone else finds it still queued on the dead wake_q and is dropped)
// and leaks the task reference.

// localWakeQRe matches a wake_q declared on the stack.
var localWakeQRe = regexp.MustCompile(`\bDEFINE_WAKE_Q\s*\(\s*(\w+)\s*\)|\bstruct\s+wake_q_head\s+(\w+)\s*[;=]`)

// checkWakeQFlush reports an exit of nw that a path reaches after adding
// a task to a local wake_q and without flushing it, when the patch made
// that path (the add, the exit, or a flush on the way changed).
func (r *checker) checkWakeQFlush(old, nw *wfunc) {
	if len(r.p.wakeQFlush) == 0 {
		return
	}
	nw = r.wholeNew(nw)
	if nw.F == nil || nw.F.Body == nil || nw.Partial {
		return
	}
	for _, q := range localWakeQs(nw) {
		var adds, flushes []int
		for _, c := range nw.F.Calls {
			switch {
			case !hasArg(c.Args, "&"+q) || r.p.wakeQInert[c.Name]:
			case r.p.wakeQFlush[c.Name] || r.flushesWithin(c.Name, nw.File):
				flushes = append(flushes, flushLine(c, q))
			default:
				// wake_q_add(), or a helper handed the wake_q to
				// fill (futex_wake_mark(), rwsem_mark_wake()).
				adds = append(adds, c.Line)
			}
		}
		if len(adds) == 0 {
			continue
		}
		sort.Ints(adds)
		fl := flowOf(nw)
		removedFlush := old != nil && r.removedFlush(old, q)
		for _, e := range fl.jumps {
			if !e.ret && !gotoPastFlushes(fl, e, flushes) {
				continue
			}
			// The adds in a switch arm that cannot fall into the
			// exit's arm are not on its way (exits.go armEndsBefore).
			on := slices.DeleteFunc(slices.Clone(adds), func(a int) bool { return fl.armEndsBefore(a, e) })
			if len(on) == 0 {
				continue
			}
			if ok, _ := fl.passes(on, nw.F.BodyStart, e); !ok && !loopAdds(e, on, nw.F.BodyStart) {
				continue // no add on the way to this exit
			}
			// From the last add before the exit: a flush between an
			// earlier add and a later one does not cover the later.
			from := on[0]
			for _, a := range on {
				if a < e.line {
					from = a
				}
			}
			ok, via := fl.passes(flushes, from, e)
			if ok {
				continue
			}
			if !nw.changed(e.line) && !nw.changed(via) && !removedFlush && !anyChanged(nw, adds) {
				continue // as the tree has it
			}
			r.reportWakeQFlush(nw, q, adds[0], e.line)
			break
		}
	}
}

// gotoPastFlushes reports whether jump e is a goto to a label after
// which no flush of the wake_q follows: the path leaves through that
// label's exit as if it returned at the goto.
func gotoPastFlushes(fl bodyFlow, e jump, flushes []int) bool {
	l, ok := fl.labels[e.label]
	if e.label == "" || !ok {
		return false
	}
	for _, f := range flushes {
		if f > l && fl.reaches(l, f) {
			return false
		}
	}
	return true
}

// loopAdds reports whether exit e sits in a loop that adds to the
// wake_q (at one of the lines adds) further down its body: an earlier
// iteration may have queued a task before this one leaves. Loops that
// start before the body (bodyStart) are not the function's.
func loopAdds(e jump, adds []int, bodyStart int) bool {
	for _, st := range e.encl {
		l, ok := st.(*cscan.LoopStmt)
		if !ok || l.Line <= bodyStart {
			continue // (a header the scanner read as a loop macro)
		}
		end := 0
		if b, ok := l.Body.(*cscan.Block); ok {
			end = b.EndLine
		}
		for _, a := range adds {
			if a > l.Line && (end == 0 || a < end) {
				return true
			}
		}
	}
	return false
}

// flushLine returns the line a flush of wake_q q counts at: the test of
// an "if (!wake_q_empty(&q))" around it (an empty wake_q needs no
// flush, so the if flushes every path through it), else its own line.
func flushLine(c cscan.Call, q string) int {
	for _, g := range c.Guards {
		if g.Kind == "if" && strings.Contains(strings.Join(strings.Fields(g.Cond), ""), "wake_q_empty(&"+q+")") {
			return g.Line
		}
	}
	return c.Line
}

// flushesWithin reports whether function name (as file sees it) calls a
// wake_q flush itself: a helper handed the wake_q that flushes it
// (rwsem_del_wake_waiter() in some versions, an unlock-and-wake helper).
func (r *checker) flushesWithin(name, file string) bool {
	if r.pass.Index == nil {
		return false
	}
	for _, fn := range cscan.PickDefs(r.pass.Index.Funcs(name), file) {
		full := r.pass.Index.Full(fn)
		if full == nil {
			continue
		}
		for _, c := range full.Calls {
			if r.p.wakeQFlush[c.Name] {
				return true
			}
		}
	}
	return false
}

// hasArg reports whether one of args is arg.
func hasArg(args []string, arg string) bool {
	for _, a := range args {
		if strings.TrimSpace(a) == arg {
			return true
		}
	}
	return false
}

// localWakeQs returns the wake_qs f declares on its stack.
func localWakeQs(f *wfunc) []string {
	var out []string
	for _, t := range f.lines {
		for _, m := range localWakeQRe.FindAllStringSubmatch(codeOnly(t), -1) {
			out = appendUnique(out, m[1]+m[2])
		}
	}
	sort.Strings(out)
	return out
}

// removedFlush reports whether the patch removed a flush of wake_q q
// from old.
func (r *checker) removedFlush(old *wfunc, q string) bool {
	if old.F == nil {
		return false
	}
	for _, c := range old.F.Calls {
		if r.p.wakeQFlush[c.Name] && len(c.Args) > 0 && strings.TrimSpace(c.Args[0]) == "&"+q && old.changed(c.Line) {
			return true
		}
	}
	return false
}

// anyChanged reports whether one of lines of f is a changed line.
func anyChanged(f *wfunc, lines []int) bool {
	for _, l := range lines {
		if f.changed(l) {
			return true
		}
	}
	return false
}

func (r *checker) reportWakeQFlush(f *wfunc, q string, add, exit int) {
	at, et := strings.TrimSpace(f.text(add)), strings.TrimSpace(f.text(exit))
	fr := report.Finding{
		Category: CategoryRemoved,
		Severity: report.SeverityRisk,
		File:     f.File, Func: f.Name, Line: exit, Key: f.Name + "." + q,
		Message:  fmt.Sprintf("%s() can leave (line %d) with a task queued on its wake_q `%s` and no wake_up_q()", f.Name, exit, q),
		Evidence: []string{f.evidence(add), f.evidence(exit)},
	}
	fr.Chain = append(fr.Chain,
		report.Step{Func: f.Name, File: f.File, Line: add, What: "queues the wake-up: " + at},
		report.Step{Func: f.Name, File: f.File, Line: exit, What: "leaves without flushing it: " + et})
	fr.Evidence = append(fr.Evidence, interleaving(f.Name+"()", "the queued task", [][2]string{
		{"", "sleeps: condition false"},
		{"makes its condition true", ""},
		{at, ""},
		{et + " (no wake_up_q())", ""},
		{"", "never woken; a later wake_q_add() of it is dropped"},
	})...)
	fr.Explanation = fmt.Sprintf("%s() declares the wake_q %s on its stack and queues a task on it (%s), but the path through line %d returns without wake_up_q(&%s). A wake_q only wakes its tasks when it is flushed: the task stays asleep although its condition holds, keeps its node linked to a dead wake_q (so every later wake_q_add() of it is dropped), and the reference wake_q_add() took is leaked. Flush the wake_q on every path out once a task may be on it.",
		f.Name, q, at, exit, q)
	r.add(fr)
}

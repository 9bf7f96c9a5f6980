package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// What a wake function's return tells __wake_up_common(): the walk over
// the queue's entries calls each entry's function and goes on while it
// returns 0 ("not for me", or a non-exclusive entry woken), counts a
// non-zero return of an exclusive entry as the one wake-up it had to give
// (with nr_exclusive == 1 the walk stops there), and stops at once on a
// negative return. So each return path of a wake function is one of:
// it woke its task (a call of default_wake_function(),
// autoremove_wake_function(), wake_up_process() ... on the way, or their
// result returned), it declines (0), it claims the wake-up without waking
// anyone (a positive constant), or it stops the walk (a negative one). A
// patch that turns a path from one kind into another changes who else on
// the queue is woken: a claim without a wake-up takes the wake-up from the
// next exclusive waiter, a stop takes it from every waiter after it, and
// a decline where the task used to be woken leaves it asleep.

// retKind is what one return path of a wake function does.
type retKind int

const (
	retUnknown retKind = iota
	retDecline
	retWake
	retClaim
	retStop
)

func (k retKind) String() string {
	switch k {
	case retDecline:
		return "declines the event (returns 0)"
	case retWake:
		return "wakes its task"
	case retClaim:
		return "claims the wake-up without waking its task"
	case retStop:
		return "stops the walk of the queue"
	}
	return "unknown"
}

// past says what a return of kind k did, in the past tense.
func (k retKind) past() string {
	switch k {
	case retDecline:
		return "declined the event"
	case retWake:
		return "woke its task"
	case retClaim:
		return "claimed the wake-up"
	case retStop:
		return "stopped the walk"
	}
	return "did something else"
}

// wakeReturn is one return of a wake function: its line, the conditions
// on its way (outermost first) and its kind.
type wakeReturn struct {
	line  int
	conds []string
	kind  retKind
}

// wakesTask reports whether call c wakes a task: a library wake function
// (entry_wakers) or a task waker that is not deferred.
func (r *checker) wakesTask(c cscan.Call) bool {
	return r.p.entryWakers[c.Name] || r.p.taskWakers[c.Name] != nil && !r.p.taskWakers[c.Name].Deferred
}

// wakeReturns classifies the returns of wake function f.
func (r *checker) wakeReturns(f *wfunc) []wakeReturn {
	var out []wakeReturn
	busy := false // a call other than the entry's bookkeeping came first
	var walk func(s cscan.Stmt, conds []string, woke bool) bool
	walk = func(s cscan.Stmt, conds []string, woke bool) bool {
		switch s := s.(type) {
		case *cscan.Block:
			blockConds(s, conds, func(st cscan.Stmt, cs []string) { woke = walk(st, cs, woke) })
		case *cscan.ExprStmt:
			for _, c := range s.Calls {
				switch {
				case r.wakesTask(c):
					woke = true
				case !r.inertInWakeFunc(c.Name) && !r.pureHelper(c.Name, f.File):
					busy = true
				}
			}
		case *cscan.ReturnStmt:
			k := r.returnKind(s, woke)
			if k == retClaim && busy {
				// Work handed on before claiming (a work item or an
				// eventfd that wakes later) may be the wake-up.
				k = retUnknown
			}
			out = append(out, wakeReturn{line: s.Line, conds: conds, kind: k})
		case *cscan.IfStmt:
			c := normLine(s.Cond)
			walk(s.Then, append(append([]string(nil), conds...), c), woke)
			if s.Else != nil {
				walk(s.Else, append(append([]string(nil), conds...), "!("+c+")"), woke)
			}
		case *cscan.LoopStmt:
			walk(s.Body, append(append([]string(nil), conds...), "loop "+normLine(s.Cond)), woke)
		case *cscan.SwitchStmt:
			walk(s.Body, append(append([]string(nil), conds...), "switch "+normLine(s.Cond)), woke)
		case *cscan.ScopedGuardStmt:
			walk(s.Body, conds, woke)
		}
		return woke
	}
	if f.F != nil && f.F.Body != nil {
		walk(f.F.Body, nil, false)
	}
	return out
}

// inertInWakeFunc reports whether a wake function's call of name is
// bookkeeping of the entry (list unlinks, locks, atomics, bit and
// ordering operations, READ_ONCE/WRITE_ONCE), not work that may wake
// the task later.
func (r *checker) inertInWakeFunc(name string) bool {
	if r.p.unlinks[name] != nil || r.p.locks.Primitive(name) || r.p.ordering(name) != "" || trivialCalls[name] {
		return true
	}
	for _, p := range []string{"list_", "hlist_", "atomic", "test_", "set_bit", "clear_bit", "WRITE_ONCE", "READ_ONCE", "container_of", "key_to_poll"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var (
	// pointerStoreRe finds a store through a pointer or into a member or
	// an element: "x->a = ", "x.a |= ", "x->n++", "*p = ", "(*p)++",
	// "p[i] = ".
	pointerStoreRe = regexp.MustCompile(`(?:->|\.)\s*\w+(?:\s*\[[^\]]*\])*\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?:[^=]|$)|\+\+|--)|(?:\+\+|--)\s*\(?\s*[\w*]+\s*(?:->|\.)|(?:^|[;{}(]\s*)\*\s*\(?\s*\w+\s*\)?\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?:[^=]|$)|\)?\s*(?:\+\+|--))|\b\w+\s*(?:\[[^\]]*\]\s*)+(?:(?:[-+*/%&|^]|<<|>>)?=(?:[^=]|$)|\+\+|--)`)
	// readOnlyCalls are the calls a pure helper may make: they read
	// their arguments and store nothing.
	readOnlyCalls = map[string]bool{"READ_ONCE": true, "container_of": true, "key_to_poll": true,
		"test_bit": true, "list_empty": true, "list_first_entry": true, "list_first_entry_or_null": true,
		"list_entry": true, "likely": true, "unlikely": true, "smp_load_acquire": true}
	// notCallWords are the words callInExprRe also finds before a
	// parenthesis that are no calls.
	notCallWords = map[string]bool{"return": true, "sizeof": true, "if": true, "while": true,
		"for": true, "switch": true, "typeof": true}
)

// pureHelper reports whether name is a small function (the patch's new
// side, else the tree's) that only computes a value from its arguments
// (io_uring's wqe_to_req() casts wait->private): it calls nothing but
// readers (readOnlyCalls) and stores through no pointer. A wake function
// that calls it before claiming the wake-up has handed no work on.
func (r *checker) pureHelper(name, file string) bool {
	if r.tree == nil {
		return false
	}
	return r.memoBool("pure()"+name, func() bool {
		defs := r.funcsNamed(name, file)
		if len(defs) == 0 || defs[0].F == nil || defs[0].F.End-defs[0].F.Start > maxAccessorLines {
			return false
		}
		f := defs[0]
		var body strings.Builder
		for l := f.F.Start; l <= f.F.End; l++ {
			body.WriteString(codeOnly(f.lines[l]))
			body.WriteByte(' ')
		}
		b := body.String()
		open := strings.IndexByte(b, '{')
		if open < 0 || pointerStoreRe.MatchString(b[open:]) {
			return false
		}
		for _, m := range callInExprRe.FindAllStringSubmatch(b[open:], -1) {
			if !notCallWords[m[1]] && !readOnlyCalls[m[1]] {
				return false
			}
		}
		return true
	})
}

// memoBool returns the answer memoised under key (in r.canon), computing
// it once; a recursive question about key meanwhile gets false.
func (r *checker) memoBool(key string, compute func() bool) bool {
	if v, ok := r.canon[key]; ok {
		return v != ""
	}
	r.canon[key] = ""
	if compute() {
		r.canon[key] = "y"
		return true
	}
	return false
}

// smallDef returns the definition of name seen from file when the view
// has one of at most max lines, nil otherwise.
func (r *checker) smallDef(name, file string, max int) *cscan.Func {
	if r.pass.Index == nil || name == "" {
		return nil
	}
	fns := cscan.PickDefs(r.pass.Index.Funcs(name), file)
	if len(fns) == 0 || fns[0].End-fns[0].Start > max {
		return nil
	}
	return fns[0]
}

// returnKind classifies one return statement, woke telling whether the
// path to it already woke the task.
func (r *checker) returnKind(s *cscan.ReturnStmt, woke bool) retKind {
	for _, c := range s.Calls {
		if r.wakesTask(c) {
			return retWake
		}
	}
	e := strings.TrimSpace(cscan.StripParens(strings.TrimSpace(s.Expr)))
	switch {
	case woke:
		return retWake
	case e == "0" || e == "false":
		return retDecline
	case e == "1" || e == "true":
		return retClaim
	case strings.HasPrefix(e, "-") && len(e) > 1 && (e[1] >= '0' && e[1] <= '9' || strings.HasPrefix(e[1:], "E")):
		return retStop
	}
	return retUnknown
}

// checkWakeReturns reports a return of wake function nw that the patch
// turned from one kind into a worse one under the same conditions.
func (r *checker) checkWakeReturns(old, nw *wfunc) {
	if old == nil || old.F == nil || nw.F == nil {
		return
	}
	olds := r.wakeReturns(old)
	for _, n := range r.wakeReturns(nw) {
		if !nw.changed(n.line) || n.kind == retUnknown || n.kind == retWake {
			continue
		}
		var o *wakeReturn
		for i := range olds {
			if sameConds(olds[i].conds, n.conds) && olds[i].kind != retUnknown && olds[i].kind != n.kind {
				o = &olds[i]
				if old.changed(o.line) {
					break
				}
			}
		}
		if o == nil || !worseReturn(o.kind, n.kind) {
			continue
		}
		// A claim only matters to an exclusive entry: when the file
		// never queues one, the walk goes on past it anyway.
		if n.kind == retClaim && !r.queuesExclusive(nw) {
			continue
		}
		r.reportWakeReturn(old, nw, *o, n)
		return
	}
}

// worseReturn reports whether a return that did was and now does now
// leaves some waiter of the queue asleep that was woken before.
func worseReturn(was, now retKind) bool {
	switch now {
	case retStop:
		return true
	case retClaim:
		return was == retDecline || was == retWake
	case retDecline:
		return was == retWake
	}
	return false
}

// sameConds reports whether two condition lists are the same.
func sameConds(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (r *checker) reportWakeReturn(old, nw *wfunc, o, n wakeReturn) {
	nt, ot := strings.TrimSpace(nw.text(n.line)), strings.TrimSpace(old.text(o.line))
	when := "always"
	var shown []string
	for _, c := range n.conds {
		switch {
		case strings.HasPrefix(c, "loop ") || strings.HasPrefix(c, "switch "):
			continue // where the return is, not a condition of it
		case strings.Contains(c, "||") || strings.Contains(c, "?"):
			c = "(" + c + ")"
		}
		shown = append(shown, c)
	}
	if len(shown) > 0 {
		when = "when " + strings.Join(shown, " && ")
	}
	f := report.Finding{
		Category: CategoryWakeFunc,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: n.line,
		Message:  fmt.Sprintf("wake function %s() now %s (%s) where it %s", nw.Name, n.kind, nt, o.kind.past()),
		Evidence: []string{nw.evidence(n.line)},
		Old:      []string{old.evidence(o.line)},
	}
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: n.line, What: when + ": " + nt})
	var rows [][2]string
	var lost string
	switch n.kind {
	case retStop:
		rows = [][2]string{{nw.Name + "(): " + nt, ""}, {"__wake_up_common() stops walking the queue", "queued after this entry: not woken"}}
		lost = "every entry queued after this one is skipped for this event"
	case retClaim:
		rows = [][2]string{{nw.Name + "(): " + nt + " (task not woken)", ""}, {"counted as the exclusive wake-up; walk stops", "next exclusive waiter: not woken"}}
		lost = "an exclusive entry's non-zero return is counted as the one wake-up of wake_up()/nr_exclusive, so the next exclusive waiter is not woken, and this entry's own task was not woken either"
	case retDecline:
		rows = [][2]string{{nw.Name + "(): " + nt, "this entry's task: sleeps on"}, {"walk goes on; nobody else waits for it", ""}}
		lost = "the task this entry belongs to is not woken for an event it used to be woken for"
	}
	f.Evidence = append(f.Evidence, interleaving("waker: __wake_up_common()", "other sleepers on the queue", rows)...)
	f.Explanation = fmt.Sprintf("__wake_up_common() decides from a wake function's return whether to go on: 0 goes on, a non-zero return of an exclusive entry counts as the wake-up it had to give, a negative one stops the walk. Here %s() %s (%s) and now %s (%s) under the same conditions (%s): %s. Keep the old return, or wake the task before claiming the wake-up.",
		nw.Name, o.kind.past(), ot, n.kind, nt, when, lost)
	r.add(f)
}

// queuesExclusive reports whether the file of wake function f queues an
// entry exclusively (an exclusive waiter of the tables, or a
// WQ_FLAG_EXCLUSIVE flag): only then does a claim take the wake-up from
// another waiter. Without the tree it is not known, and assumed.
func (r *checker) queuesExclusive(f *wfunc) bool {
	if r.pass.Index == nil {
		return true
	}
	for _, t := range r.tree.file(f.File).lines.All() {
		t = codeOnly(t)
		if strings.Contains(t, "WQ_FLAG_EXCLUSIVE") {
			return true
		}
		for _, m := range callInExprRe.FindAllStringSubmatch(t, -1) {
			if w := r.p.waiter(m[1]); w != nil && w.Exclusive {
				return true
			}
		}
	}
	return false
}

package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Deciding the wake-up-removed, skipped and stale-entry notes with the
// tree: a removed or skipped wake-up is a risk when the queue has
// sleepers, the path changed what they wait for, and no other wake-up on
// the path (this function, its callees, its callers) covers it.

// maxCallers bounds the callers searched for a covering wake-up.
const maxCallers = 12

// maxBlankLines bounds the comment and blank lines stepped over back to
// the last code line of a block.
const maxBlankLines = 16

// otherWaiters returns the post-patch waiters of q outside function fn.
func (r *checker) otherWaiters(q, fn string) []*wsite {
	var out []*wsite
	for _, s := range r.waitersOf(q) {
		if s.Fn.Name != fn {
			out = append(out, s)
		}
	}
	return out
}

// coveringWake finds another wake-up of q on f's path: in f itself, in a
// function f calls, or in a caller where its call of f reaches it. It
// returns a description, "" if none.
func (r *checker) coveringWake(f *wfunc, q string, from int, o *wsite) string {
	// Only what runs after from on its path covers it: a wake-up past
	// the return that ends an error path leaves that path without one.
	fl := flowOf(f)
	at := from
	if from > 1 && strings.HasPrefix(strings.TrimSpace(f.text(from)), "}") {
		// The position closes a block: what ran there ran inside it, at
		// its last line of code (a wake-up in the else branch does not
		// cover the then branch).
		at = from - 1
		for at > 1 && at > from-maxBlankLines && strings.TrimSpace(codeOnly(f.text(at))) == "" {
			at--
		}
	}
	for _, s := range f.sitesOn(siteWake, "") {
		if r.sameQueue(s.Q, q) && s.Line() >= from && fl.reaches(at, s.Line()) && !otherObject(s, o) && !s.Derived {
			return fmt.Sprintf("%s() still wakes it at line %d (%s)", f.Name, s.Line(), s.Text())
		}
	}
	if f.F == nil {
		return ""
	}
	field := queueField(q)
	// A call handed the queue itself may wake it (a driver's own waker).
	for _, c := range f.F.Calls {
		if c.Line < from || !fl.reaches(at, c.Line) || r.p.isPrimitive(c.Name) || r.p.locks.Primitive(c.Name) || strings.Contains(c.Name, "unlock") ||
			r.p.removals[c.Name] != nil || r.p.entries[c.Name] != nil {
			continue
		}
		for _, a := range c.Args {
			if field != "" && strings.HasPrefix(strings.TrimSpace(a), "&") && keyLast(queueKey(a, f.vt, f.Name)) == field && !r.neverWakes(c.Name, f.File) {
				return fmt.Sprintf("%s() is handed the queue and may wake it (line %d)", c.Name, c.Line)
			}
		}
	}
	if r.tree == nil {
		return ""
	}
	// A primitive that is itself the change of state (complete()) is
	// looked for one call deeper: moved into a helper's helper, it still
	// signals.
	depth := 1
	if o != nil {
		if w := r.p.waker(o.Call.Name); w != nil && w.Stores {
			depth = 2
		}
	}
	seen := map[string]bool{}
	for _, c := range f.F.Calls {
		if c.Line < from || !fl.reaches(at, c.Line) || seen[c.Name] || r.p.isPrimitive(c.Name) || r.p.ordering(c.Name) != "" {
			continue
		}
		seen[c.Name] = true
		if s := r.wakesWithin(c.Name, f.File, q, depth); s != nil {
			return fmt.Sprintf("its callee %s() wakes it (%s:%d)", s.Fn.Name, s.Fn.File, s.Line())
		}
	}
	callers := r.pass.Index.Callers(f.Name)
	if len(callers) > maxCallers {
		callers = callers[:maxCallers]
	}
	// Callers cover the path only when each of them wakes the queue
	// after its call: one caller's wake-up leaves the others' paths
	// without one.
	covered, n := "", 0
	for _, cs := range callers {
		if cs.Func == nil || cs.Func.Name == f.Name {
			continue
		}
		n++
		wakes := ""
		cv := r.tree.view(cs.Func)
		cfl := flowOf(cv)
		for _, s := range cv.sitesOn(siteWake, "") {
			if s.Line() > cs.Call.Line && r.sameQueue(s.Q, q) && cfl.reaches(cs.Call.Line, s.Line()) {
				wakes = fmt.Sprintf("its caller %s() wakes it after the call (%s:%d)", cs.Func.Name, s.Fn.File, s.Line())
				break
			}
		}
		if wakes == "" {
			return ""
		}
		if covered == "" {
			covered = wakes
		}
	}
	if n > 1 && covered != "" {
		covered = fmt.Sprintf("each of its %d callers wakes it after the call (%s)", n, strings.TrimPrefix(covered, "its caller "))
	}
	return covered
}

// decideRemoved escalates a removed wake-up o (old side; nw is the new
// function) to a risk when the queue has waiters and nothing on the path
// wakes them any more.
func (r *checker) decideRemoved(f *report.Finding, o *wsite, nw *wfunc) {
	waiters := r.otherWaiters(o.Q, o.Fn.Name)
	if len(waiters) == 0 {
		waiters = r.handoffWaiters(o.Fn, o.Line(), o.Q, nw)
	}
	if len(waiters) == 0 {
		return
	}
	if c := r.handedInstead(o, nw); c != "" {
		f.Explanation += fmt.Sprintf(" The object is handed to another call in its place: %s.", c)
		return
	}
	if c := r.coveringWake(nw, o.Q, r.newPosOf(nw, o.Line()), o); c != "" {
		f.Explanation += fmt.Sprintf(" Another waker covers it: %s.", c)
		return
	}
	if c := r.precedingWaker(o, nw); c != "" {
		f.Explanation += fmt.Sprintf(" The wake-up was redundant: %s.", c)
		return
	}
	// A helper that wakes (wrapper.go) is itself the change of state: the
	// call hands it the object, or it stores before its wake-up; a
	// primitive changes it only when it stores (complete()).
	caller, before := "", storeAbove(o.Fn, o.Line())
	row := r.p.waker(o.Call.Name)
	// An argument-less helper of a fixed queue (rfcomm_schedule()) is
	// handed nothing: unless it stores before its wake-up, it only wakes,
	// as a primitive does.
	pure := row != nil && !row.Stores || len(o.Call.Args) == 0 && !r.helperStores(o.Call.Name, o.Fn.File)
	if pure && !r.changesStateBefore(o) && storesWaited(o, waiters) == "" {
		switch {
		case soleSignal(o) && !anyWaitCond(waiters):
			// The function exists to signal, and no waiter says what it
			// waits for (pollers, open-coded sleeps): its callers change
			// the state. With conditions known, callerChangesState
			// compares them with the callers' stores instead.
			before = "(a caller changes the state, then calls " + o.Fn.Name + "(), which only wakes)"
		default:
			if caller = r.callerChangesState(o, waiters); caller == "" {
				f.Explanation += " Nothing on this path before it stores shared state or hands the queue's object to a call, so the waiters' condition may not change here."
				return
			}
		}
	}
	if before == "" && caller != "" {
		before = "(stores, then calls " + o.Fn.Name + "(): " + caller + ")"
	}
	w := pickWaiter(waiters, before, o.Fn.File)
	r.riskUnwoken(f, w, o.Fn, o.Line(), "wake-up removed: "+o.Text())
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{"", w.Text()},
		{"", "  condition false: sleeps"},
		{before, ""},
		{"(no " + o.Call.Name + " any more)", ""},
		{"", "sleeps on although its condition may now hold"},
	})...)
	f.Explanation = fmt.Sprintf("%s() no longer calls %s on %s, and nothing else on this path wakes it (not this function, its callees or its callers). %s waits on %s for %s; when this path makes that true, the waiter keeps sleeping. Keep the wake-up (with the barrier it needs) on this path.",
		o.Fn.Name, o.Call.Name, o.Q, siteWhere(w), o.Q, condOrState(w))
	if w.Fn.Name == o.Fn.Name {
		f.Explanation += fmt.Sprintf(" That waiter is another thread running %s(): a thread does not wake itself, so the wake-up after its own wait hands the state on to the next one.", o.Fn.Name)
	}
}

// riskUnwoken makes f a risk naming the waiter w left sleeping.
func (r *checker) riskUnwoken(f *report.Finding, w *wsite, fn *wfunc, line int, what string) {
	f.Severity = report.SeverityRisk
	f.Chain = append(f.Chain, step(w, "waits: "+w.Text()))
	f.Chain = append(f.Chain, report.Step{Func: fn.Name, File: fn.File, Line: line, What: what})
}

// condOrState describes what a waiter waits for.
func condOrState(w *wsite) string {
	if c := waitCond(w); c != "" {
		return "`" + c + "`"
	}
	return "its condition"
}

// storeRe finds a store to shared state: a member assignment, WRITE_ONCE,
// a list insertion, an atomic, per-CPU or bit update.
var storeRe = regexp.MustCompile(`(?:->|\.)\s*\w+(?:\[[^\]]*\])?\s*(?:[-+|&^]?=[^=]|\+\+|--)|\b(?:WRITE_ONCE|list_add\w*|hlist_add\w*|llist_add|atomic\w*_(?:inc|dec|set|add|sub)\w*|set_bit|__set_bit|clear_bit|__clear_bit|clear_bit_unlock|__clear_bit_unlock|smp_store_release|(?:__)?this_cpu_(?:inc|dec|add|sub|write|xchg|cmpxchg|or|and)\w*)\s*\(`)

// helperStores reports whether the small helper name stores shared state
// before its wake-up (md_new_event(): atomic_inc() then wake_up()).
func (r *checker) helperStores(name, file string) bool {
	for _, h := range r.smallFuncsNamed(name, file, maxHelperLines) {
		for _, s := range h.sitesOn(siteWake, "") {
			for l := h.F.BodyStart + 1; l < s.Line(); l++ {
				if t, ok := h.lines[l]; ok && isStore(t) {
					return true
				}
			}
		}
	}
	return false
}

// isStore reports whether the code of line t (its comments left out: a
// call named in a comment is not a store) stores shared state.
func isStore(t string) bool { return storeRe.MatchString(codeOnly(t)) }

// inlineCommentRe matches a comment that opens and closes on the line.
var inlineCommentRe = regexp.MustCompile(`/\*.*?\*/`)

// codeOnly returns a line without its comments: a call named in a comment
// is not a store. Lines inside a comment that spans lines ("* ..."), and
// the parts before its end or after its start, are dropped too.
func codeOnly(t string) string {
	t = inlineCommentRe.ReplaceAllString(t, "")
	if i := strings.Index(t, "//"); i >= 0 {
		t = t[:i]
	}
	if i := strings.Index(t, "*/"); i >= 0 {
		t = t[i+2:]
	}
	if i := strings.Index(t, "/*"); i >= 0 {
		t = t[:i]
	}
	if s := strings.TrimSpace(t); s == "*" || strings.HasPrefix(s, "* ") {
		return ""
	}
	return t
}

// storeBeforeExit returns the first store in the block that ends with the
// exit at line exit (the lines from the block's opening brace to the
// exit), "" if none.
func (r *checker) storeBeforeExit(f *wfunc, exit int) string {
	var lines []int
	for l := range f.lines {
		if l < exit {
			lines = append(lines, l)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(lines)))
	depth := 0
	for i, l := range lines {
		if i > 30 {
			break
		}
		t := f.lines[l]
		depth += strings.Count(t, "}") - strings.Count(t, "{")
		if depth < 0 {
			break // the enclosing block's opening line
		}
		if _, store := r.storedFields(f, t); store {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// decideSkipped escalates a new early exit before wake-up n to a risk when
// the path to the exit stores shared state and n's queue has waiters.
func (r *checker) decideSkipped(f *report.Finding, nw *wfunc, n *wsite, exit int) {
	if n.Kind == siteDeepWake {
		// Its wake-up is conditional on state of its own: the path's
		// stores say nothing of whether it would have woken anyone.
		return
	}
	waiters := r.otherWaiters(n.Q, nw.Name)
	if len(waiters) == 0 {
		waiters = r.handoffWaiters(nw, n.Line(), n.Q, nw)
	}
	store := r.storeBeforeExit(nw, exit)
	if store == "" {
		store = storeInLoopOf(nw, exit, n)
	}
	if store == "" && n.WKind != "task" {
		store = r.storeWaitedFor(nw, exit, n, waiters)
	}
	if n.WKind == "task" {
		store, waiters = taskStoreBefore(nw, exit, waiters)
	}
	if len(waiters) == 0 || store == "" {
		return
	}
	w := pickWaiter(waiters, store, nw.File)
	r.riskUnwoken(f, w, nw, exit, "new exit skips the wake-up: "+strings.TrimSpace(nw.text(exit)))
	f.Chain = append(f.Chain, step(n, "the skipped wake-up: "+n.Text()))
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{"", w.Text()},
		{"", "  condition false: sleeps"},
		{store, ""},
		{strings.TrimSpace(nw.text(exit)), ""},
		{"  (skips " + n.Text() + ")", "sleeps on; what it waits for is there"},
	})...)
	f.Explanation = fmt.Sprintf("The new exit at line %d leaves %s() after `%s` changed state that the sleepers of %s may wait for, without reaching %s at line %d. %s waits for %s and is not woken for it. Wake the queue on this path too, or exit after the wake-up.",
		exit, nw.Name, store, n.Q, n.Call.Name, n.Line(), siteWhere(w), condOrState(w))
}

// gotosOf returns the goto statements of body and the line of each
// label.
func gotosOf(body cscan.Stmt) ([]*cscan.GotoStmt, map[string]int) {
	labels := map[string]int{}
	var gotos []*cscan.GotoStmt
	cscan.Inspect(body, func(s cscan.Stmt) {
		switch s := s.(type) {
		case *cscan.GotoStmt:
			gotos = append(gotos, s)
		case *cscan.LabelStmt:
			labels[s.Label] = s.Line
		}
	})
	return gotos, labels
}

// checkSkippingGotos reports a goto the patch added before wake-up n that
// jumps past it (old and o are nw and n before the patch).
func (r *checker) checkSkippingGotos(old, nw *wfunc, o, n *wsite) {
	if nw.F == nil || nw.F.Body == nil {
		return
	}
	gotos, labels := gotosOf(nw.F.Body)
	for _, g := range gotos {
		l := labels[g.Label]
		if g.Line >= n.Line() || l <= n.Line() || !nw.changed(g.Line) || r.exitExcludesEvent(nw, n, stmtGuards(nw.F.Body, g.Line)) {
			continue
		}
		f := report.Finding{
			Category: CategoryRemoved,
			Severity: report.SeverityNote,
			File:     nw.File, Func: nw.Name, Line: g.Line, Key: n.Q,
			Message: fmt.Sprintf("new goto %s in %s() jumps over the wake-up of %s at line %d", g.Label, nw.Name, n.Q, n.Line()),
			Explanation: "A jump added before the wake-up leaves its waiters sleeping on that path; " +
				"wake them before jumping or show that nothing they wait for changed.",
			Evidence: []string{nw.evidence(g.Line), nw.evidence(n.Line())},
		}
		r.decideSkipped(&f, nw, n, g.Line)
		r.decideNotifierGated(&f, old, nw, o, n, stmtGuards(nw.F.Body, g.Line), g.Line, l)
		r.add(f)
		return
	}
}

// decideStaleEntry escalates an exclusive, non-auto-removing entry s (set
// up by e) to a risk when a waker of its queue wakes a single exclusive
// waiter: that wake-up can hit the already-woken entry.
func (r *checker) decideStaleEntry(f *report.Finding, s, e *wsite) {
	var single *wsite
	for _, w := range r.wakersOf(s.Q) {
		if w.Breadth != "all" && w.Fn.Name != s.Fn.Name {
			single = w
			break
		}
	}
	if single == nil {
		return
	}
	f.Severity = report.SeverityRisk
	f.Chain = append(f.Chain, step(e, "entry without auto-removal: "+e.Text()))
	f.Chain = append(f.Chain, step(s, "queued exclusively: "+s.Text()))
	f.Chain = append(f.Chain, step(single, describeBreadth(single)+": "+single.Text()))
	f.Evidence = append(f.Evidence, interleaving(single.Fn.Name+"() (events 1, 2)", s.Fn.Name+"() A and B, both queued", [][2]string{
		{single.Text() + " : event 1", "A woken; its entry stays first on the queue"},
		{single.Text() + " : event 2", "hits A's entry again (A already running)"},
		{"", "B: not woken, sleeps with event 2 pending"},
	})...)
	f.Explanation += fmt.Sprintf(" %s() %s on %s, so the second event's wake-up is spent on the entry of a task that is already awake, and the next exclusive waiter misses it.",
		single.Fn.Name, describeBreadth(single), s.Q)
}

// preferSleeper returns the first waiter that sleeps (wait_event,
// prepare_to_wait) rather than registers for poll, else the first.
func preferSleeper(ws []*wsite) *wsite {
	for _, w := range ws {
		if w.WKind != "poll" {
			return w
		}
	}
	return ws[0]
}

// storeAbove returns the nearest store above line in f (what the removed
// or skipped wake-up announced), else the nearest code line.
func storeAbove(f *wfunc, line int) string {
	for l := line - 1; l > 0 && l >= line-12; l-- {
		if t, ok := f.lines[l]; ok && isStore(t) {
			return strings.TrimSpace(t)
		}
	}
	t, _ := codeLine(f, line, -1)
	return t
}

// newPosOf returns the first new-side line that can stand where old line
// sat: one past the last unchanged line before it (0 when unknown).
func (r *checker) newPosOf(nw *wfunc, old int) int {
	m := r.maps[nw.File]
	if m == nil {
		return 0
	}
	best := 0
	for nl, ol := range m.newToOld {
		if ol < old && nl > best {
			if _, ok := nw.lines[nl]; ok {
				best = nl
			}
		}
	}
	if best == 0 {
		return 0
	}
	return best + 1
}

// plainStoreRe finds an assignment to a plain variable (not a member).
var plainStoreRe = regexp.MustCompile(`(?:^|[^\w>.])([A-Za-z_]\w*)\s*(?:[-+|&^]?=[^=]|\+\+|--)`)

// storeInLoopOf returns a store of the loop that encloses the exit at line
// exit, made after the exit in the loop body (the last one): an earlier
// iteration made it before this iteration's exit. "" if none, or when
// wake-up wake follows that store in the loop body (each such iteration
// woke the queue already).
func storeInLoopOf(f *wfunc, exit int, wake *wsite) string {
	if f.F == nil || f.F.Body == nil {
		return ""
	}
	var loop cscan.Stmt
	cscan.Inspect(f.F.Body, func(st cscan.Stmt) {
		if l, ok := st.(*cscan.LoopStmt); ok && l.Line < exit && stmtEnd(l) > exit {
			loop = l // the innermost: Inspect visits outer loops first
		}
	})
	if loop == nil {
		return ""
	}
	last, lastAt := "", 0
	for l := exit + 1; l <= stmtEnd(loop); l++ {
		if t, ok := f.lines[l]; ok && isStore(t) {
			last, lastAt = strings.TrimSpace(t), l
		}
	}
	if last == "" || wakeAfterInLoop(f, wake, lastAt, stmtEnd(loop)) {
		return ""
	}
	return "(an earlier iteration) " + last
}

// wakeAfterInLoop reports whether wake-up n sits in the loop body after
// line from (the loop's last store) and before the loop's end at end:
// every iteration that made the store woke the queue after it.
func wakeAfterInLoop(f *wfunc, n *wsite, from, end int) bool {
	return n != nil && n.Fn == f && n.Line() > from && n.Line() <= end
}

// handedInstead returns the call the patch adds in the change block of
// a removed wake-up through a helper or member call o that is handed
// the same object (schedule_work(&dev->work) for dev_notify(dev)): the
// wake-up is deferred or moved there, not dropped; "" if none.
func (r *checker) handedInstead(o *wsite, nw *wfunc) string {
	if !o.Derived || o.Obj == "" || nw == nil || nw.F == nil {
		return ""
	}
	b := r.blockOf(o.Fn, o.Line())
	if b == 0 {
		return ""
	}
	for _, c := range nw.F.Calls {
		if !nw.changed(c.Line) || r.blockOf(nw, c.Line) != b {
			continue
		}
		for _, a := range c.Args {
			if containsWord(a, o.Obj) {
				return fmt.Sprintf("%s() at line %d", c.Name, c.Line)
			}
		}
	}
	return ""
}

// precedingWaker reports a removed wake-up o that only repeated the one
// its helper had just made: in the old version o came right after a call
// on the same path, with nothing stored between them, that the new
// version still makes and whose callee wakes o's queue itself (a trailing
// wake_up_all() after a helper that clears the flag and wakes). What the
// callee makes true it announces; the path changes nothing after it that
// o announced. A removed call of a helper that stores and wakes is not
// such a repeat. It returns a description, "" if none.
func (r *checker) precedingWaker(o *wsite, nw *wfunc) string {
	old := o.Fn
	if r.tree == nil || old.F == nil || nw.F == nil || o.Derived || !r.p.isPrimitive(o.Call.Name) {
		return ""
	}
	var last *cscan.Call
	for i := range old.F.Calls {
		c := &old.F.Calls[i]
		if c.Line >= o.Line() {
			break
		}
		if r.p.isPrimitive(c.Name) || r.p.ordering(c.Name) != "" || r.p.locks.Primitive(c.Name) {
			continue
		}
		last = c
	}
	if last == nil || !samePath(*last, o.Call) || storeBetween(old, last.Line, o.Line()) {
		return ""
	}
	kept := false
	for _, c := range nw.F.Calls {
		if c.Name == last.Name {
			kept = true
		}
	}
	if !kept {
		return ""
	}
	if s := r.wakesWithin(last.Name, nw.File, o.Q, 2); s != nil {
		return fmt.Sprintf("%s(), called just before it, wakes the queue itself (%s() at %s:%d), and nothing was stored between that call and the wake-up", last.Name, s.Fn.Name, s.Fn.File, s.Line())
	}
	return ""
}

// maxWakesWithinCalls bounds the calls wakesWithin follows per function.
const maxWakesWithinCalls = 32

// queueField is the last field of a queue key ("wait" of "var:x->wait"),
// which a callee's own key of the same queue ends with.
func queueField(q string) string {
	return strings.TrimSuffix(keyLast(strings.TrimPrefix(strings.TrimPrefix(q, "var:"), "completion:")), "()")
}

// wakesWithin returns a wake-up of q made by the function name (called
// from file) or, up to depth levels down, by a function it calls; nil
// when none is found.
func (r *checker) wakesWithin(name, file, q string, depth int) *wsite {
	field := queueField(q)
	for _, fn := range cscan.PickDefs(r.pass.Index.Funcs(name), file) {
		for _, s := range r.tree.view(fn).sitesOn(siteWake, "") {
			if r.sameQueue(s.Q, q) || (field != "" && keyLast(s.Q) == field) {
				return s
			}
		}
		if depth <= 1 {
			continue
		}
		full := r.pass.Index.Full(fn)
		if full == nil {
			continue
		}
		seen := map[string]bool{}
		for _, c := range full.Calls {
			if seen[c.Name] || r.p.isPrimitive(c.Name) || r.p.ordering(c.Name) != "" || r.p.locks.Primitive(c.Name) {
				continue
			}
			seen[c.Name] = true
			if len(seen) > maxWakesWithinCalls {
				break
			}
			if s := r.wakesWithin(c.Name, fn.File, q, depth-1); s != nil {
				return s
			}
		}
	}
	return nil
}

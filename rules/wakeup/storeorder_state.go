package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// State vs wake-up order (category state-order): a store that a sleeper's
// condition reads used to come before a wake-up and now comes after it
// (moved down in the same function, or into a caller after the call that
// wakes). The woken task re-checks its condition, still sees the old
// value and goes back to sleep; the store that would satisfy it comes
// with no wake-up.

// movedStore is a store line the patch removed in one function and added
// in another place.
type movedStore struct {
	text   string
	fields []string
	from   *wfunc // old side
	line   int    // old line
}

func normLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkStoreAfterWake reports stores moved after the wake-up they used to
// precede.
func (r *checker) checkStoreAfterWake() {
	var moved []movedStore
	for _, old := range r.olds {
		if old == nil {
			continue
		}
		for l, t := range old.lines {
			if !old.changed(l) {
				continue
			}
			fs, _ := r.storedFields(old, t)
			if len(fs) == 0 {
				continue
			}
			moved = append(moved, movedStore{text: normLine(t), fields: fs, from: old, line: l})
		}
	}
	sort.Slice(moved, func(i, j int) bool { return moved[i].line < moved[j].line })
	done := map[string]bool{}
	risky := map[string]bool{} // function|queue pairs already reported at risk
	for _, m := range moved {
		var wakes []*wsite
		for _, w := range m.from.sitesOn(siteWake, "") {
			if w.Line() > m.line {
				wakes = append(wakes, w)
			}
		}
		if len(wakes) == 0 {
			continue
		}
		for i, nw := range r.news {
			if nw == nil {
				continue
			}
			for l, t := range nw.lines {
				if !nw.changed(l) || normLine(t) != m.text {
					continue
				}
				key := nw.Name + ":" + m.text
				if done[key] {
					continue
				}
				for _, w := range wakes {
					if !r.wakesBefore(nw, i, m.from.Name, w.Q, l) {
						continue
					}
					done[key] = true
					r.reportStoreAfterWake(m, nw, l, w, risky)
					break
				}
			}
		}
	}
}

// wakesBefore reports whether new function nw wakes queue q before line
// l: directly, or through a call of from (whose new side still wakes q).
func (r *checker) wakesBefore(nw *wfunc, _ int, from, q string, l int) bool {
	fl := flowOf(nw)
	for _, s := range nw.sitesOn(siteWake, "") {
		if s.Line() < l && r.sameQueue(s.Q, q) && fl.reaches(s.Line(), l) {
			return true
		}
	}
	if nw.F == nil || nw.Name == from {
		return false
	}
	for _, c := range nw.F.Calls {
		if c.Name != from || c.Line >= l || !fl.reaches(c.Line, l) {
			continue
		}
		for _, f := range r.news {
			if f != nil && f.Name == from && len(f.sitesOn(siteWake, "")) > 0 {
				return true
			}
		}
		if r.tree != nil {
			for _, fn := range cscan.PickDefs(r.pass.Index.Funcs(from), nw.File) {
				for _, s := range r.tree.view(fn).sitesOn(siteWake, "") {
					if r.sameQueue(s.Q, q) {
						return true
					}
				}
			}
		}
	}
	return false
}

func (r *checker) reportStoreAfterWake(m movedStore, nw *wfunc, line int, w *wsite, risky map[string]bool) {
	f := report.Finding{
		Category: CategoryStateOrder,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: line, Key: w.Q,
		Message:  fmt.Sprintf("%s now stored after the wake-up of %s (%s() line %d)", shownFields(m.fields), w.Q, w.Fn.Name, w.Line()),
		Evidence: []string{nw.evidence(line)},
		Old:      []string{m.from.evidence(m.line), w.Fn.evidence(w.Line())},
	}
	var reader *wsite
	for _, s := range r.otherWaiters(w.Q, "") {
		if r.condReads(s, m.fields) && !storeCannotSatisfy(m.text, s) {
			reader = s
			break
		}
	}
	if reader == nil {
		if risky[nw.Name+"|"+w.Q] {
			return // the same move is reported at risk for another field
		}
		f.Explanation = fmt.Sprintf("The store of %s used to precede %s on %s; it now follows it. No sleeper of %s was found whose condition reads it; if one does, it is woken before the change and sleeps again.", shownFields(m.fields), w.Call.Name, w.Q, w.Q)
		r.add(f)
		return
	}
	// A lock held across the wake-up and the store, which the sleeper
	// takes to test its condition (wait_event_lock_irq), makes the woken
	// task wait for the store.
	if h, ok := r.lockOrdersStore(nw, line, w, reader); ok {
		f.Explanation = fmt.Sprintf("The store of %s now follows %s, but both run under %s, which %s takes to test its condition: the woken task cannot see the old value.", shownFields(m.fields), w.Call.Name, h.describe(), siteWhere(reader))
		r.add(f)
		return
	}
	f.Severity = report.SeverityRisk
	risky[nw.Name+"|"+w.Q] = true
	f.Chain = append(f.Chain, step(reader, "waits for a condition that reads "+shownFields(m.fields)+": "+reader.Text()))
	f.Chain = append(f.Chain, step(w, "wakes it: "+w.Text()))
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: line, What: "stores it only afterwards: " + normLine(nw.text(line))})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", reader.Fn.Name+"()", [][2]string{
		{"", reader.Text()},
		{"", "  condition false: sleeps"},
		{w.Text(), ""},
		{"", "woken: " + wokenLooks(reader)},
		{"", "  reads the old " + shownFields(m.fields) + ": sleeps again"},
		{normLine(nw.text(line)), ""},
		{"  (no wake-up after it)", "sleeps forever"},
	})...)
	f.Explanation = fmt.Sprintf("%s waits until %s, which reads %s. The patch moves the store `%s` from before %s() line %d (%s) to %s() line %d, after it: the woken task re-checks its condition against the old value and goes back to sleep, and nothing wakes it once the value changes. Store first, then wake (or wake again after the store).",
		siteWhere(reader), condOrState(reader), shownFields(m.fields), m.text, w.Fn.Name, w.Line(), w.Call.Name, nw.Name, line)
	r.add(f)
}

// condReads reports whether waiter s's condition (with the helpers it
// calls, from the patch or the tree) reads one of the fields.
func (r *checker) condReads(s *wsite, fields []string) bool {
	cond := waitCond(s)
	if cond == "" && s.WKind == "completion" {
		// A completion has no condition of its own: the waiter looks at
		// the state in the lines after its wait returns, without a
		// re-check (an open-coded loop re-checks, often under a lock).
		cond = s.Fn.textAfter(s.Line(), afterWaitLines)
	}
	if cond == "" {
		return false
	}
	text := r.withHelpers(cond, s.Fn.File)
	for _, fl := range fields {
		if readsField(text, fl) {
			return true
		}
	}
	return false
}

// withHelpers returns a waiter's condition text followed by the bodies of
// the functions it calls and of theirs (from the patch or the tree, as
// seen from file): what the condition reads.
func (r *checker) withHelpers(cond, file string) string {
	text := cond
	for _, name := range calledNames(cond) {
		if body, ok := r.funcText(name, file); ok {
			text += "\n" + body
			for _, inner := range calledNames(body) {
				if b2, ok := r.funcText(inner, file); ok && len(b2) < 4000 {
					text += "\n" + b2
				}
			}
		}
	}
	return text
}

// afterWaitLines is how many lines after a wait without a condition are
// read as what the woken task looks at.
const afterWaitLines = 12

// textAfter returns the lines of f after line, at most n of them.
func (f *wfunc) textAfter(line, n int) string {
	var b strings.Builder
	for l := line + 1; l <= line+n; l++ {
		if t, ok := f.lines[l]; ok {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// trivialCalls are calls that do not change what a woken task looks at.
var trivialCalls = map[string]bool{"if": true, "while": true, "for": true, "switch": true, "return": true, "sizeof": true,
	"likely": true, "unlikely": true, "WARN_ON": true, "WARN_ON_ONCE": true, "BUG_ON": true, "READ_ONCE": true}

// workIn returns the calls and stores of a line that may change what a
// woken task observes ("" if none): a store of shared state (a member or
// a file-scope variable of f's file) or a non-trivial call.
func (r *checker) workIn(f *wfunc, t string) string {
	s := strings.TrimSpace(t)
	if s == "" || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/*") || strings.HasPrefix(s, "*") {
		return ""
	}
	if _, store := r.storedFields(f, s); store {
		return s
	}
	for _, m := range condCallRe.FindAllStringSubmatch(s, -1) {
		n := m[1]
		if trivialCalls[n] || strings.HasPrefix(n, "trace_") || strings.HasPrefix(n, "pr_") || strings.HasPrefix(n, "dev_") || n == "printk" ||
			strings.Contains(n, "lock") || strings.HasPrefix(n, "rcu_read_") || strings.HasPrefix(n, "local_irq") || strings.HasPrefix(n, "preempt_") {
			continue // moving a wake-up inside a lock section or a log call changes nothing the woken task sees
		}
		return s
	}
	return ""
}

// checkWakeMovedEarlier reports a wake-up the patch moved above work that
// used to complete before it: the woken task can now run before that work
// and see its state half done.
func (r *checker) checkWakeMovedEarlier(old, nw *wfunc, o, n *wsite) {
	if o.Call.Name != n.Call.Name {
		return
	}
	// Lines the patch moved from before the old wake-up to after the new
	// one (the diff may show either side as the moved one).
	removedBefore := map[string]bool{}
	for l, t := range old.lines {
		if l < o.Line() && old.changed(l) {
			removedBefore[normLine(t)] = true
		}
	}
	m := r.maps[nw.File]
	if m == nil {
		return
	}
	var passed []string
	var passedAt []int
	var lines []int
	for l := range nw.lines {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	fl := flowOf(nw)
	for _, l := range lines {
		if l <= n.Line() || !fl.reaches(n.Line(), l) {
			// Work on another path (after a return, under a label only
			// a goto reaches) does not follow this wake-up.
			continue
		}
		if nw.changed(l) {
			if t := normLine(nw.lines[l]); removedBefore[t] {
				if w := r.workIn(nw, t); w != "" {
					passed = append(passed, w)
					passedAt = append(passedAt, l)
				}
			}
			continue
		}
		if !n.Changed() {
			continue
		}
		ol, ok := m.newToOld[l]
		if !ok || ol >= o.Line() || ol <= 0 {
			continue
		}
		if _, in := old.lines[ol]; !in {
			continue
		}
		if w := r.workIn(nw, nw.lines[l]); w != "" {
			passed = append(passed, w)
			passedAt = append(passedAt, l)
		}
	}
	waiters := r.wakeWaiters(nw, n)
	passed = r.workWaitedFor(nw, n, passed, passedAt, waiters)
	if len(passed) == 0 {
		return
	}
	f := report.Finding{
		Category: CategoryStateOrder,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: n.Line(), Key: n.Q,
		Message:  fmt.Sprintf("wake-up of %s moved before work that used to complete first (%s)", n.Q, passed[0]),
		Evidence: []string{nw.evidence(n.Line())},
		Old:      []string{old.evidence(o.Line())},
	}
	if len(waiters) == 0 {
		f.Explanation = fmt.Sprintf("%s() now wakes %s before `%s`; a woken task can run before that work is done. No sleeper of %s was found.", nw.Name, n.Q, passed[0], n.Q)
		r.add(f)
		return
	}
	w := waiters[0]
	f.Severity = report.SeverityRisk
	f.Chain = append(f.Chain, step(w, "waits: "+w.Text()))
	f.Chain = append(f.Chain, step(n, "woken before the work below: "+n.Text()))
	rows := [][2]string{
		{"", w.Text()},
		{n.Text(), ""},
		{"", "woken: " + condOrState(w) + " holds, runs on"},
		{"", "looks at the state the work below produces:"},
		{"", "  not there yet, gives up or sleeps again"},
	}
	for i, p := range passed {
		if i == 2 {
			break
		}
		rows = append(rows, [2]string{p, ""})
	}
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", rows)...)
	f.Explanation = fmt.Sprintf("%s() used to wake %s after `%s`; the patch moves %s above it. %s is woken as soon as its condition holds and then relies on what it was woken for; the work that produces it now runs after the wake-up, so the woken task can see it missing (stop early, or sleep again with no further wake-up). Keep the wake-up after the work it announces.",
		nw.Name, n.Q, strings.Join(passed, "`, `"), n.Call.Name, siteWhere(w))
	r.add(f)
}

// wakeWaiters returns the waiters of wake-up n's queue: those of other
// functions first, then those of nw itself, where another task running
// nw waits for the one that does the work (the first caller constructs,
// the others wait for its PENDING bit).
func (r *checker) wakeWaiters(nw *wfunc, n *wsite) []*wsite {
	waiters := r.otherWaiters(n.Q, nw.Name)
	for _, s := range r.waitersOf(n.Q) {
		if s.Fn.Name == nw.Name {
			waiters = append(waiters, s)
		}
	}
	return waiters
}

// workWaitedFor returns the lines of passed (at lines passedAt of nw,
// now after wake-up n) that a woken waiter may look at: not wake-ups,
// and stores only when a waiter's condition reads them (else
// checkStoreAfterWake reports them as notes), unless a lock orders them
// before any waiter looks.
func (r *checker) workWaitedFor(nw *wfunc, n *wsite, passed []string, passedAt []int, waiters []*wsite) []string {
	var work []string
	for i, p := range passed {
		if r.isWakeLine(p) || r.onlyNotifies(p) {
			continue
		}
		fs, store := r.storedFields(nw, p)
		if store && len(waiters) > 0 && cannotSatisfyAny(p, waiters) {
			continue
		}
		if store && !condCallRe.MatchString(strings.SplitN(p, "=", 2)[0]) {
			read := false
			for _, w := range waiters {
				if r.condReads(w, fs) && !storeCannotSatisfy(p, w) && !r.storeLocked(nw, passedAt[i], n, w) {
					read = true
				}
			}
			if !read {
				continue
			}
		}
		if r.lockOrdersWork(nw, passedAt[i], n, waiters) {
			continue
		}
		work = append(work, p)
	}
	return work
}

// onlyNotifies reports whether every call of a line that stores nothing
// is a notification (the table's notifications: kill_fasync(),
// sk->sk_data_ready()), which changes nothing a woken task looks at.
func (r *checker) onlyNotifies(t string) bool {
	if isStore(t) {
		return false
	}
	calls := condCallRe.FindAllStringSubmatch(codeOnly(t), -1)
	for _, m := range calls {
		if !r.p.notifications[m[1]] && !trivialCalls[m[1]] {
			return false
		}
	}
	return len(calls) > 0
}

// isWakeLine reports whether a line calls a wake-up primitive.
func (r *checker) isWakeLine(t string) bool {
	for _, m := range condCallRe.FindAllStringSubmatch(t, -1) {
		if r.p.waker(m[1]) != nil || r.p.taskWakers[m[1]] != nil {
			return true
		}
	}
	return false
}

// heldAt reports whether the lock key is among held.
func heldAt(held []heldLock, key string) bool {
	for _, h := range held {
		if h.key == key {
			return true
		}
	}
	return false
}

// lockOrdersStore reports whether the store at line of nw and the wake-up
// w run under a lock that the sleeper s takes to test its condition (the
// woken task then waits for the lock, and the store, before re-testing),
// and which.
func (r *checker) lockOrdersStore(nw *wfunc, line int, w, s *wsite) (heldLock, bool) {
	for _, h := range r.locksAt(nw, line) {
		if r.checksUnder(s, h.key) && (nw.Name != w.Fn.Name || heldAt(r.locksAt(nw, w.Line()), h.key)) {
			return h, true
		}
	}
	if nw.Name != w.Fn.Name {
		return heldLock{}, false
	}
	// A lock the callers hold across both.
	for _, h := range r.heldAcross(nw, line, w.Line()) {
		if h.callers != "" && r.checksUnderLock(s, h) {
			return h, true
		}
	}
	return heldLock{}, false
}

// storeLocked is lockOrdersStore's answer alone.
func (r *checker) storeLocked(nw *wfunc, line int, w, s *wsite) bool {
	_, ok := r.lockOrdersStore(nw, line, w, s)
	return ok
}

// lockOrdersWork reports whether work at line of nw, which now follows
// the wake-up n, is still done before any waiter can look at it: one
// acquisition of a lock spans both the wake-up and the work, and every
// waiter takes that lock to look at its state (a woken task waits for
// the lock, hence for the work) or waits for a condition that reads none
// of the members the work touches.
func (r *checker) lockOrdersWork(nw *wfunc, line int, n *wsite, waiters []*wsite) bool {
	if len(waiters) == 0 {
		return false
	}
	fields := fieldsIn(nw.text(line))
	if g := r.globalStore(nw.File, nw.text(line)); g != "" {
		fields = append(fields, globalMark+g)
	}
	for _, h := range r.heldAcross(nw, line, n.Line()) {
		all := true
		for _, w := range waiters {
			if r.checksUnderLock(w, h) {
				continue
			}
			if waitCond(w) == "" || r.condReads(w, fields) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// wokenLooks says what a woken waiter does first: re-check its condition,
// or (a completion) go on to read the state.
func wokenLooks(w *wsite) string {
	if c := waitCond(w); c != "" {
		return "re-checks `" + c + "`"
	}
	return "returns from the wait and reads the state"
}

// storedConstRe finds the upper-case constant a store writes ("x = C;",
// "WRITE_ONCE(x, C)", "smp_store_release(&x, C)").
var storedConstRe = regexp.MustCompile(`(?:[^=!<>]=|,)\s*([A-Z][A-Z0-9_]{2,})\s*\)?\s*;`)

// storeCannotSatisfy reports whether the store writes a constant that
// waiter w's condition cannot be waiting for: the condition only tests
// its state for equality with other constants (state == ACTIVE ||
// state == REMOVED, and the store writes ACTIVATING). Waking such a
// waiter early is at worst spurious.
func storeCannotSatisfy(store string, w *wsite) bool {
	m := storedConstRe.FindStringSubmatch(store)
	if m == nil {
		return false
	}
	cond := strings.ReplaceAll(waitCond(w), "->", ".")
	if cond == "" || containsWord(cond, m[1]) || strings.ContainsAny(cond, "<>!") && !strings.Contains(cond, "==") {
		return false
	}
	if strings.Contains(cond, "!=") || strings.ContainsAny(cond, "<>") {
		return false
	}
	return constRe.MatchString(cond) && strings.Contains(cond, "==")
}

// cannotSatisfyAny reports whether the store writes a constant none of
// the waiters waits for (storeCannotSatisfy for each).
func cannotSatisfyAny(store string, waiters []*wsite) bool {
	for _, w := range waiters {
		if !storeCannotSatisfy(store, w) {
			return false
		}
	}
	return true
}

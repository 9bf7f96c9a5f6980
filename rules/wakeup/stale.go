package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Stale state on the waker's side: the wake-up is decided from a value
// that is no longer ordered after the waker's own store (a flag tested
// before the barrier-implying atomic instead of after it), or the queue
// to wake is picked from a fresh read of shared state instead of the
// snapshot the sleepers indexed with.

var condCallRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// pathEvent is one barrier or field load on the path to a wake-up.
type pathEvent struct {
	line, pos int
	barrier   string // the barrier call, "" for a load
	field     string // the field loaded
}

// pathEvents lists, in evaluation order, the full barriers and the field
// loads of the conditions that decide wake-up n (an else branch evaluates
// its if's condition first), and the full barriers of the calls on its
// path.
func (r *checker) pathEvents(f *wfunc, n *wsite) []pathEvent {
	if f.F == nil || f.F.Body == nil {
		return nil
	}
	elseCond := elseIfs(f)
	var ev []pathEvent
	addCond := func(line int, cond string) {
		for _, m := range condCallRe.FindAllStringSubmatchIndex(cond, -1) {
			if r.p.ordering(cond[m[2]:m[3]]) == "full" {
				ev = append(ev, pathEvent{line: line, pos: m[0], barrier: cond[m[2]:m[3]]})
			}
		}
		for _, m := range memberUseRe.FindAllStringSubmatchIndex(cond, -1) {
			if rest := strings.TrimSpace(cond[m[1]:]); strings.HasPrefix(rest, "(") {
				continue
			}
			ev = append(ev, pathEvent{line: line, pos: m[0], field: cond[m[2]:m[3]]})
		}
	}
	guardLines := map[int]bool{}
	for _, g := range n.Call.Guards {
		guardLines[g.Line] = true
		switch g.Kind {
		case "else":
			if i := elseCond[g.Line]; i != nil {
				addCond(i.Line, i.Cond)
			}
		case "if", "case", "loop":
			addCond(g.Line, g.Cond)
		}
	}
	for _, c := range f.F.Calls {
		if c.Line >= n.Line() || guardLines[c.Line] || !samePath(c, n.Call) {
			continue
		}
		if r.p.ordering(c.Name) == "full" {
			ev = append(ev, pathEvent{line: c.Line, pos: -1, barrier: c.Name})
		}
	}
	sort.SliceStable(ev, func(i, j int) bool {
		if ev[i].line != ev[j].line {
			return ev[i].line < ev[j].line
		}
		return ev[i].pos < ev[j].pos
	})
	return ev
}

// loadsAroundBarrier splits the loaded fields into those read before the
// first barrier and those read after it.
func loadsAroundBarrier(ev []pathEvent) (before, after []string, barrier string) {
	seen := false
	for _, e := range ev {
		switch {
		case e.barrier != "":
			if !seen {
				barrier = e.barrier
			}
			seen = true
		case seen:
			after = appendUnique(after, e.field)
		default:
			before = appendUnique(before, e.field)
		}
	}
	return before, after, barrier
}

// checkCheckBeforeBarrier reports a wake-up whose deciding test of a field
// moved before the full barrier that used to order it after the waker's
// store: the test can read a value older than the sleeper's update.
func (r *checker) checkCheckBeforeBarrier(old, nw *wfunc, o, n *wsite) {
	if !n.Changed() && !o.Changed() && !r.guardChanged(nw, n) {
		return
	}
	ob, oa, barrier := loadsAroundBarrier(r.pathEvents(old, o))
	if barrier == "" {
		return
	}
	nb, _, _ := loadsAroundBarrier(r.pathEvents(nw, n))
	var moved []string
	for _, fl := range nb {
		// The queue head itself, read by a sleeper check
		// (wq_has_sleeper() weakened to waitqueue_active()), is not the
		// state the wake-up is decided on (gating.go judges that).
		if fl == keyLast(n.Q) {
			continue
		}
		if contains(oa, fl) && !contains(ob, fl) {
			moved = append(moved, fl)
		}
	}
	if len(moved) == 0 {
		return
	}
	f := report.Finding{
		Category: CategoryBarrier,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: n.Line(), Key: n.Q,
		Message:  fmt.Sprintf("wake-up of %s now decided by %s read before %s (it was read after it)", n.Q, strings.Join(moved, ", "), barrier),
		Evidence: []string{nw.evidence(n.Line())},
		Old:      []string{old.evidence(o.Line())},
	}
	for _, g := range n.Call.Guards {
		if nw.changed(g.Line) {
			f.Evidence = append([]string{nw.evidence(g.Line)}, f.Evidence...)
		}
	}
	waiters := r.otherWaiters(n.Q, nw.Name)
	for _, h := range r.locksAt(nw, n.Line()) {
		if queueLockOf(h.key, []string{n.Q}) {
			f.Explanation = fmt.Sprintf("The test of %s no longer follows %s, but %s orders it.", strings.Join(moved, ", "), barrier, h.text)
			r.add(f)
			return
		}
	}
	if len(waiters) == 0 {
		f.Explanation = fmt.Sprintf("%s() used to read %s after %s, whose full barrier orders the read after its own store and pairs with the sleeper's barrier; it is now read before it, so it can be stale. The sleepers of %s were not found.", nw.Name, strings.Join(moved, ", "), barrier, n.Q)
		r.add(f)
		return
	}
	w := waiters[0]
	f.Severity = report.SeverityRisk
	f.Chain = append(f.Chain, step(w, "waits: "+w.Text()))
	f.Chain = append(f.Chain, step(n, "wake-up decided by "+strings.Join(moved, ", ")+" read before "+barrier+": "+n.Text()))
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{"reads " + strings.Join(moved, ", ") + ": old value", ""},
		{"", "changes " + strings.Join(moved, ", ") + "; smp_mb()"},
		{"", "checks " + condOrState(w) + ": not yet, sleeps"},
		{barrier + "(): makes the condition true", ""},
		{"  -> takes the branch without " + n.Call.Name, "sleeps, nobody wakes it"},
	})...)
	f.Explanation = fmt.Sprintf("%s() used to test %s after %s(), a full barrier that orders the test after its own update and pairs with the barrier on the sleeper's side (%s). The test now runs before it, so it can see the value from before the sleeper's update while the sleeper, in turn, sees the condition not yet true: the wake-up of %s is skipped and %s sleeps for good. Test %s after the barrier-implying operation (or add smp_mb() before it).",
		nw.Name, strings.Join(moved, ", "), barrier, siteWhere(w), n.Q, w.Fn.Name+"()", strings.Join(moved, ", "))
	r.add(f)
}

// queueIndex returns the index expression of a queue argument
// ("&dev->wq[idx(s) & 0x3]" -> "idx(s) & 0x3").
func queueIndex(arg string) string {
	i := strings.IndexByte(arg, '[')
	j := strings.LastIndexByte(arg, ']')
	if i < 0 || j <= i {
		return ""
	}
	return strings.TrimSpace(arg[i+1 : j])
}

// readsShared reports whether an expression reads shared state: a member
// of a struct or a global (an identifier not local to f).
func readsShared(expr string, f *wfunc) bool {
	if strings.Contains(expr, "->") || memberUseRe.MatchString(strings.ReplaceAll(expr, "...", "")) {
		return true
	}
	_ = f
	return false
}

// checkQueueIndex reports a wake-up that now picks its queue from a fresh
// read of shared state instead of the snapshot the sleepers used.
func (r *checker) checkQueueIndex(o, n *wsite) {
	oi, ni := queueIndex(o.Arg), queueIndex(n.Arg)
	if oi == "" || ni == "" || oi == ni || !n.Changed() {
		return
	}
	if readsShared(oi, o.Fn) || !readsShared(ni, n.Fn) {
		r.checkIndexLeftWaiters(o, n, oi, ni)
		return
	}
	waiters := r.otherWaiters(n.Q, n.Fn.Name)
	f := report.Finding{
		Category: CategoryRemoved,
		Severity: report.SeverityNote,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Message:  fmt.Sprintf("wake-up of %s now picks the queue from shared state (%s) instead of the snapshot %s", n.Q, ni, oi),
		Evidence: []string{n.Fn.evidence(n.Line())},
		Old:      []string{o.Fn.evidence(o.Line())},
		Explanation: fmt.Sprintf("The sleepers chose their queue from a snapshot; %s reads the current value, which can have moved on since, so the wake-up can hit another queue than the one they sleep on.",
			ni),
	}
	if len(waiters) > 0 {
		w := waiters[0]
		f.Severity = report.SeverityRisk
		f.Chain = append(f.Chain, step(w, "sleeps on the queue its snapshot picks: "+w.Text()))
		f.Chain = append(f.Chain, step(n, "wakes the queue the current value picks: "+n.Text()))
		f.Evidence = append(f.Evidence, interleaving(n.Fn.Name+"()", w.Fn.Name+"()", [][2]string{
			{"", "sleeps on [" + queueIndex(w.Arg) + "]"},
			{"(shared state advances: a later update)", ""},
			{"wakes [" + ni + "]: another queue", ""},
			{"", "never woken"},
		})...)
		f.Explanation = fmt.Sprintf("%s sleeps on the queue indexed by %s, computed from its own snapshot; %s() used to wake the queue of its snapshot (%s) and now indexes with a fresh read (%s). Once that shared value has moved on, the wake-up goes to a different queue and the sleepers of this one are never woken. Index with the snapshot the sleepers used.",
			siteWhere(w), queueIndex(w.Arg), n.Fn.Name, oi, ni)
	}
	r.add(f)
}

// checkIndexLeftWaiters reports a wake-up of an element of an array of
// queues whose index the patch rewrote (oi to ni) away from the one its
// sleepers compute: some sleeper indexes the array as the old wake-up
// did, none as the new one does (rcu_exp_wait_wake() waking
// exp_wq[s & 0x3] where the sleepers wait on exp_wq[rcu_seq_ctr(s) &
// 0x3]). A patch that changes both sides alike leaves a sleeper that
// matches the new index.
func (r *checker) checkIndexLeftWaiters(o, n *wsite, oi, ni string) {
	nn, on := indexShape(n.Fn, ni, n.Line()), indexShape(o.Fn, oi, o.Line())
	if nn == on {
		return // the same index, renamed or computed into a local
	}
	var left *wsite
	for _, w := range r.otherWaiters(n.Q, n.Fn.Name) {
		switch indexShape(w.Fn, queueIndex(w.Arg), w.Line()) {
		case nn:
			return
		case on:
			if left == nil {
				left = w
			}
		}
	}
	if left == nil {
		return
	}
	r.add(report.Finding{
		Category: CategoryRemoved,
		Severity: report.SeverityRisk,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Message: fmt.Sprintf("wake-up of %s now indexes the queues with %s, its sleepers with %s", n.Q, ni, oi),
		Evidence: append([]string{n.Fn.evidence(n.Line())}, interleaving(n.Fn.Name+"()", left.Fn.Name+"()", [][2]string{
			{"", "sleeps on [" + queueIndex(left.Arg) + "]"},
			{"wakes [" + ni + "]: another queue", ""},
			{"", "never woken"},
		})...),
		Old:   []string{o.Fn.evidence(o.Line())},
		Chain: []report.Step{step(left, "sleeps on the queue it indexes with "+oi+": "+left.Text()), step(n, "wakes the queue indexed with "+ni+": "+n.Text())},
		Explanation: fmt.Sprintf("%s sleeps on the element of the queue array indexed by %s, as %s() used to wake it; the wake-up now indexes with %s, which can pick another element, and the sleepers of this one are never woken. Index the wake-up as the sleepers do.",
			siteWhere(left), oi, n.Fn.Name, ni),
	})
}

// localAssignRe matches a plain assignment or initialised declaration
// of a variable: the name and the value ("idx = rcu_seq_ctr(s) & 0x3;"),
// not a member's store or a comparison.
var localAssignRe = regexp.MustCompile(`(?:^|[;{(,\s*])([A-Za-z_]\w*)\s*=\s*([^=;][^;]*);`)

// indexValue returns the expression a plain local of f (a name the
// function declares) was last assigned before line ("rcu_seq_ctr(s) &
// 0x3" for idx after "int idx = rcu_seq_ctr(s) & 0x3;"), else name
// itself.
func indexValue(f *wfunc, name string, line int) string {
	if f == nil || !identRe.MatchString(name) {
		return name
	}
	best, val := 0, name
	for l, t := range f.lines {
		if l >= line || l < best || !strings.Contains(t, name) {
			continue
		}
		for _, m := range localAssignRe.FindAllStringSubmatch(codeOnly(t), -1) {
			if m[1] == name && !strings.Contains(m[2], ";") {
				best, val = l, strings.TrimSpace(m[2])
			}
		}
	}
	if val != name && !declaredNames(f)[name] && (f.vt == nil || f.vt.types[name] == "") {
		return name // a global's or a parameter's store: not the local's value
	}
	return val
}

// indexTokenRe splits an index expression into identifiers (with what
// follows them), numbers and the rest.
var indexTokenRe = regexp.MustCompile(`[A-Za-z_]\w*|0[xX][0-9a-fA-F]+|\d+|\S`)

// indexShape returns index expression idx of f at line in a form two
// functions' indexes compare in: the locals it reads replaced by the
// values they were assigned (one level), variables by "$" (the waker's
// s and a sleeper's own s are not one variable), numbers in decimal,
// white space dropped; calls and upper-case names kept.
func indexShape(f *wfunc, idx string, line int) string {
	var b strings.Builder
	toks := indexTokenRe.FindAllString(idx, -1)
	for i, t := range toks {
		switch c := t[0]; {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			called := i+1 < len(toks) && toks[i+1] == "("
			member := i > 0 && (toks[i-1] == "." || toks[i-1] == ">")
			switch {
			case called || member || constRe.MatchString(t):
				b.WriteString(t)
			default:
				if v := indexValue(f, t, line); v != t {
					b.WriteString("(" + indexShape(nil, v, line) + ")")
				} else {
					b.WriteString("$")
				}
			}
		case c >= '0' && c <= '9':
			if n, err := strconv.ParseInt(t, 0, 64); err == nil {
				b.WriteString(strconv.FormatInt(n, 10))
			} else {
				b.WriteString(t)
			}
		default:
			b.WriteString(t)
		}
	}
	return strings.TrimSuffix(strings.TrimPrefix(b.String(), "("), ")")
}

// condCallLines returns the lines of f whose if/loop/switch conditions
// call name: a call whose result decides the branch.
func condCallLines(f *wfunc, name string) map[int]bool {
	out := map[int]bool{}
	if f == nil || f.F == nil || f.F.Body == nil {
		return out
	}
	add := func(cs []cscan.Call) {
		for _, c := range cs {
			if c.Name == name {
				out[c.Line] = true
			}
		}
	}
	cscan.Inspect(f.F.Body, func(s cscan.Stmt) {
		switch s := s.(type) {
		case *cscan.IfStmt:
			add(s.CondCalls)
		case *cscan.LoopStmt:
			add(s.CondCalls)
		case *cscan.SwitchStmt:
			add(s.CondCalls)
		}
	})
	return out
}

var assignCallRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*\(`)

// snapshotHelper returns the helper that chose the queue of wake-up n (its
// base pointer is assigned from a call) after a bare lockless "has
// sleepers?" check of the same field, and that check's text.
func (r *checker) snapshotHelper(f *wfunc, n *wsite) (string, *wsite) {
	base := basePtr(n.Arg)
	if base == "" {
		return "", nil
	}
	field := keyLast(n.Q)
	for l := n.Line() - 1; l >= n.Line()-30 && l > 0; l-- {
		m := assignCallRe.FindStringSubmatch(f.lines[l])
		if m == nil || m[1] != base {
			continue
		}
		h := m[2]
		var hv *wfunc
		for _, v := range r.news {
			if v != nil && v.Name == h {
				hv = v
			}
		}
		if hv == nil && r.tree != nil {
			if fns := cscan.PickDefs(r.pass.Index.Funcs(h), f.File); len(fns) > 0 {
				hv = r.tree.view(fns[0])
			}
		}
		if hv == nil {
			return "", nil
		}
		for _, a := range hv.sitesOn(siteActive, "") {
			if !a.BuiltinBarrier && keyLast(a.Q) == field {
				return h, a
			}
		}
		return "", nil
	}
	return "", nil
}

// checkUncheckedSnapshotWakes reports a wake-up whose result the patch
// stopped checking, now aimed at a queue a helper picked from a lockless
// "has sleepers?" snapshot: when the sleepers have left in between, the
// wake-up wakes nobody and no other queue is tried.
func (r *checker) checkUncheckedSnapshotWakes() {
	checked := map[string]bool{} // queue keys whose wake-up result was tested on the old side
	for _, old := range r.olds {
		if old == nil {
			continue
		}
		for _, w := range old.sitesOn(siteWake, "") {
			if w.Changed() && condCallLines(old, w.Call.Name)[w.Line()] {
				checked[w.Q] = true
			}
		}
	}
	if len(checked) == 0 {
		return
	}
	for _, nw := range r.news {
		if nw == nil {
			continue
		}
		for _, n := range nw.sitesOn(siteWake, "") {
			if !n.Changed() || !checked[n.Q] || condCallLines(nw, n.Call.Name)[n.Line()] {
				continue
			}
			h, a := r.snapshotHelper(nw, n)
			if a == nil {
				continue
			}
			check := a.Text()
			f := report.Finding{
				Category: CategoryRemoved,
				Severity: report.SeverityRisk,
				File:     nw.File, Func: nw.Name, Line: n.Line(), Key: n.Q,
				Message:  fmt.Sprintf("wake-up of %s decided on %s()'s lockless snapshot and its result no longer checked", n.Q, h),
				Evidence: []string{nw.evidence(n.Line())},
			}
			f.Chain = append(f.Chain, step(a, "picks the queue after a lockless check: "+check))
			f.Chain = append(f.Chain, step(n, "wakes it without checking whether anybody was woken: "+n.Text()))
			f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", "the sleepers of that queue", [][2]string{
				{h + "(): " + check + " : a sleeper", ""},
				{"", "leaves the queue (timeout, signal, got it)"},
				{n.Text() + " : wakes nobody", ""},
				{"  (no other queue tried)", "sleepers on the other queues keep waiting"},
			})...)
			f.Explanation = fmt.Sprintf("The old code woke %s only as part of a test of the wake-up's result and moved on to the next candidate when nobody was woken. Now %s() picks the queue from a lockless %s in %s() and wakes it unconditionally: sleepers can leave between the check and the wake-up, which then wakes nobody while what it hands out (a batch of wake-ups, a token) is spent, and the sleepers elsewhere are never woken. Check the wake-up's result and try the next queue, as before.",
				n.Q, nw.Name, check, h)
			r.add(f)
		}
	}
}

var assignedFromRe = regexp.MustCompile(`([A-Za-z_]\w*)\s*=\s*!?\s*$`)

// assignedFrom returns the variable the result of the call at line/name is
// assigned to on its line ("x = !prepare_to_wait_exclusive(" -> x).
func assignedFrom(f *wfunc, c cscan.Call) string {
	t := f.lines[c.Line]
	i := strings.Index(t, c.Name+"(")
	if i < 0 {
		return ""
	}
	if m := assignedFromRe.FindStringSubmatch(t[:i]); m != nil {
		return m[1]
	}
	return ""
}

// checkQueueingSnapshot reports a sleeper that used the result of its
// queueing call (prepare_to_wait_exclusive() reports, under the queue
// lock, whether it was the first waiter) and now takes the same decision
// from a separate lockless check after queueing: two sleepers queueing at
// once can each see the other and both take the "somebody else will do
// it" branch.
func (r *checker) checkQueueingSnapshot(old, nw *wfunc) {
	if old == nil || nw == nil {
		return
	}
	for _, o := range old.Sites {
		if o.Kind != siteWait || !o.Changed() {
			continue
		}
		v := assignedFrom(old, o.Call)
		if v == "" {
			continue
		}
		for _, a := range nw.sitesOn(siteActive, "") {
			if !a.Changed() || a.BuiltinBarrier || !r.sameQueue(a.Q, o.Q) || assignedFrom(nw, a.Call) != v {
				continue
			}
			f := report.Finding{
				Category: CategoryRemoved,
				Severity: report.SeverityRisk,
				File:     nw.File, Func: nw.Name, Line: a.Line(), Key: a.Q,
				Message:  fmt.Sprintf("%s() now decides %s from a lockless %s() after queueing instead of %s()'s result", nw.Name, v, a.Call.Name, o.Call.Name),
				Evidence: []string{nw.evidence(a.Line())},
				Old:      []string{old.evidence(o.Line())},
			}
			f.Chain = append(f.Chain, step(a, "lockless snapshot of the queue: "+a.Text()))
			f.Evidence = append(f.Evidence, interleaving(nw.Name+"() A", nw.Name+"() B", [][2]string{
				{"queues itself", "queues itself"},
				{a.Text() + " : sees B", a.Text() + " : sees A"},
				{"skips the re-check, sleeps", "skips the re-check, sleeps"},
				{"", "nobody left to wake either"},
			})...)
			f.Explanation = fmt.Sprintf("%s() returned, atomically with queueing under the queue lock, whether this sleeper found the queue empty; %s() now reads the queue without the lock after queueing. Two sleepers that queue at the same time each see the other in their snapshot, both conclude that another sleeper will take care of it, skip the re-check and sleep, and no later event wakes them. Keep using the queueing call's result.",
				o.Call.Name, nw.Name)
			r.add(f)
			return
		}
	}
}

package wakeup

// Wake-ups the patch made conditional, or that a new early return or goto
// skips (rule 3), and the condition arithmetic they are compared with.

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// checkConditional reports a wake-up that the patch made conditional or
// that a new early return now skips (rule 3).
func (r *checker) checkConditional(old, nw *wfunc, o, n *wsite) {
	norm := r.condNormalizer()
	condGuards := func(gs []cscan.Guard, otherGate map[cscan.Guard]bool) []cscan.Guard {
		var out []cscan.Guard
		for _, g := range gs {
			if g.Kind != "if" && g.Kind != "else" && g.Kind != "case" || r.isActiveCheckOf(g.Cond, n.Q, nw) || otherGate[g] ||
				r.movedByContext(nw, g) {
				continue
			}
			if n.WKind == "task" && g.Kind == "if" {
				if g.Cond = r.withoutTaskTests(g.Cond, n); g.Cond == "" {
					continue
				}
			}
			out = append(out, g)
		}
		return out
	}
	nfg, flags := withFlagGuards(nw, n)
	ofg, _ := withFlagGuards(old, o)
	// A branch on another queue's sleepers is checkOtherQueueGate's.
	ngs, ogs := condGuards(nfg, r.sleeperGateGuards(nw, n)), condGuards(ofg, r.sleeperGateGuards(old, o))
	newLeft, oldLeft := unmatchedGuards(ngs, ogs, norm)
	var conds, ev, dropped []string
	var gates []cscan.Guard
	// A wake-up the patch moved (deleted and re-added) into a branch that
	// was already there is newly conditional on that branch too.
	moved := n.Changed() && o.Changed()
	for i, g := range newLeft {
		if !nw.changed(g.Line) && !moved {
			continue
		}
		c := strings.Join(strings.Fields(g.Cond), " ")
		if g.Kind == "else" {
			c = "the else branch"
		}
		if i < len(oldLeft) && oldLeft[i].Kind == g.Kind && g.Kind != "else" {
			oc := oldLeft[i].Cond
			if condImplies(norm(oc), norm(g.Cond)) {
				continue // widened: the old condition still wakes
			}
			rest := condMinus(norm(g.Cond), norm(oc))
			if rest != "" && r.onlyActiveChecks(rest, n.Q, nw) {
				continue // narrowed to "if anyone sleeps": the waitqueue-active rule's
			}
			dropped = append(dropped, droppedWords(oc, g.Cond)...)
			if rest != "" {
				c = rest
			} else {
				c = fmt.Sprintf("%s (was %s)", c, strings.Join(strings.Fields(oc), " "))
			}
		}
		if flag := flags[g.Line]; flag != "" {
			c += " (around the store to " + flag + ")"
		}
		conds = append(conds, c)
		gates = append(gates, g)
		ev = append(ev, nw.evidence(g.Line))
	}
	if len(conds) > 0 {
		ev = append(ev, nw.evidence(n.Line()))
		cond := strings.Join(conds, " && ")
		f := report.Finding{
			Category: CategoryRemoved,
			Severity: report.SeverityNote,
			File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
			Message: fmt.Sprintf("wake-up of %s is now conditional on %s", n.Q, cond),
			Explanation: fmt.Sprintf("%s() used to wake %s here in more cases. When %s does not hold the waiters are not woken on this path; "+
				"check that they cannot be waiting for what this path changed.", n.Fn.Name, n.Q, cond),
			Evidence: ev,
			Old:      []string{o.Fn.evidence(o.Line())},
		}
		// A gate on a flag's store takes effect where the flag is
		// read, at the wake-up: the stores before that are gated.
		start := n.Line()
		for _, g := range gates {
			if flags[g.Line] == "" {
				start = min(start, g.Line)
			}
		}
		r.decideConditional(&f, nw, n, gates, start)
		r.decideNarrowed(&f, nw, n, gates, ogs)
		r.decideNotifierGated(&f, old, nw, o, n, gates, 0, 0)
		if moved && len(oldLeft) == 0 && len(ogs) > 0 {
			r.decideMovedEvent(&f, nw, n, gates)
		}
		r.decideDroppedAnnounce(&f, nw, n, gates, dropped)
		r.add(f)
	}
	if nw.F == nil {
		return
	}
	for _, ret := range nw.F.Returns {
		if ret.Line >= n.Line() || !nw.changed(ret.Line) {
			continue
		}
		if ret.Line < firstChangedBefore(nw, n.Line()) || r.wokenBeforeExit(nw, n.Q, ret.Line, ret.Guards) || r.exitExcludesEvent(nw, n, ret.Guards) ||
			len(ret.Guards) > 0 && r.movedByContext(nw, ret.Guards[len(ret.Guards)-1]) {
			continue
		}
		f := report.Finding{
			Category: CategoryRemoved,
			Severity: report.SeverityNote,
			File:     n.Fn.File, Func: n.Fn.Name, Line: ret.Line, Key: n.Q,
			Message: fmt.Sprintf("new early return in %s() may skip the wake-up of %s at line %d", n.Fn.Name, n.Q, n.Line()),
			Explanation: "A return added before the wake-up leaves its waiters sleeping on that path; " +
				"wake them before returning or show that nothing they wait for changed.",
			Evidence: []string{nw.evidence(ret.Line), nw.evidence(n.Line())},
		}
		r.decideSkipped(&f, nw, n, ret.Line)
		r.decideNotifierGated(&f, old, nw, o, n, ret.Guards, ret.Line, 0)
		r.add(f)
		return
	}
	r.checkSkippingGotos(old, nw, o, n)
}

// unmatchedGuards returns the guards of ngs that no guard of ogs of the
// same kind and (normalised) condition matches, and those of ogs left
// over, each in order.
func unmatchedGuards(ngs, ogs []cscan.Guard, norm func(string) string) (newLeft, oldLeft []cscan.Guard) {
	oldUsed := make([]bool, len(ogs))
	for _, g := range ngs {
		found := false
		for i, og := range ogs {
			if !oldUsed[i] && og.Kind == g.Kind && norm(og.Cond) == norm(g.Cond) {
				oldUsed[i], found = true, true
				break
			}
		}
		if !found {
			newLeft = append(newLeft, g)
		}
	}
	for i, og := range ogs {
		if !oldUsed[i] {
			oldLeft = append(oldLeft, og)
		}
	}
	return newLeft, oldLeft
}

// wokenBeforeExit reports whether every path to the exit at line exit
// (under guards) wakes queue q itself, with no store after that wake-up:
// the exit skips no wake-up its path owes (a label's "store; wake_up();
// return"). A wake-up under a condition the exit is not under covers only
// some of its paths.
func (r *checker) wokenBeforeExit(f *wfunc, q string, exit int, guards []cscan.Guard) bool {
	fl := flowOf(f)
	for _, s := range f.sitesOn(siteWake, "") {
		if s.Line() >= exit || !r.sameQueue(s.Q, q) || !fl.reaches(s.Line(), exit) || !guardsWithin(s.Call.Guards, guards) {
			continue
		}
		if !storeBetween(f, s.Line(), exit) {
			return true
		}
	}
	return false
}

// firstChangedBefore returns the first line of the function view (the
// earliest visible line) so that returns above the visible region are not
// compared; with a full view it is the function start.
func firstChangedBefore(f *wfunc, _ int) int {
	min := 0
	for l := range f.lines {
		if min == 0 || l < min {
			min = l
		}
	}
	return min
}

// condNormalizer returns a function that normalises condition text for
// comparison: whitespace collapsed and the field names of renamed queues
// replaced by one placeholder, so "waitqueue_active(&pipe->wait)" and
// "waitqueue_active(&pipe->rd_wait)" compare equal.
func (r *checker) condNormalizer() func(string) string {
	names := map[string]bool{}
	for k, v := range r.renames {
		names[keyLast(k)] = true
		for _, n := range v {
			names[keyLast(n)] = true
		}
	}
	return func(c string) string {
		c = strings.Join(strings.Fields(c), " ")
		if len(names) == 0 {
			return c
		}
		var b strings.Builder
		i := 0
		for i < len(c) {
			j := i
			for j < len(c) && cscan.IsIdentChar(c[j]) {
				j++
			}
			if j > i {
				if names[c[i:j]] {
					b.WriteString("$Q")
				} else {
					b.WriteString(c[i:j])
				}
				i = j
				continue
			}
			b.WriteByte(c[i])
			i++
		}
		return b.String()
	}
}

// condImplies reports whether old implies new syntactically: old is one of
// new's top-level disjuncts.
func condImplies(old, nw string) bool {
	for _, d := range splitOr(nw) {
		if d == old || cscan.StripParens(d) == cscan.StripParens(old) {
			return true
		}
	}
	// A conjunction implies each of its conjuncts: "(st & RX) && dev"
	// implies "st & RX".
	have := map[string]bool{}
	for _, c := range splitTop(cscan.StripParens(old), "&&") {
		have[cscan.StripParens(strings.TrimSpace(c))] = true
	}
	for _, c := range splitTop(cscan.StripParens(nw), "&&") {
		if !have[cscan.StripParens(strings.TrimSpace(c))] {
			return false
		}
	}
	return true
}

// onlyActiveChecks reports whether every top-level conjunct of cond is a
// "has waiters?" check of queue q.
func (r *checker) onlyActiveChecks(cond, q string, f *wfunc) bool {
	for _, p := range splitTop(cond, "&&") {
		if !r.isActiveCheckOf(p, q, f) {
			return false
		}
	}
	return true
}

// condMinus returns the conjuncts of nw other than old when old is one of
// them ("" otherwise): the extra requirement a narrowed condition adds.
func condMinus(nw, old string) string {
	parts := splitTop(nw, "&&")
	var rest []string
	found := false
	for _, p := range parts {
		if !found && (p == old || cscan.StripParens(p) == cscan.StripParens(old)) {
			found = true
			continue
		}
		rest = append(rest, p)
	}
	if !found || len(rest) == 0 {
		return ""
	}
	return strings.Join(rest, " && ")
}

// isActiveCheckOf reports whether cond is just a "has waiters?" check of
// queue q (waitqueue_active(q), wq_has_sleeper(q), negated or not, under
// a branch hint or not): skipping a wake-up of an empty queue is the
// waitqueue-active rule's business, not a removed wake-up.
func (r *checker) isActiveCheckOf(cond, q string, f *wfunc) bool {
	k, _, ok := r.activeCheck(cond, f)
	return ok && (k == q || keyField(k) != "" && keyField(k) == keyField(q))
}

// activeCheck returns the key of the queue that cond is just a "has
// waiters?" check of (under a branch hint or not), and whether it is
// negated ("nobody waits").
func (r *checker) activeCheck(cond string, f *wfunc) (key string, negated, ok bool) {
	c := strings.TrimSpace(cond)
	for _, hint := range []string{"unlikely(", "likely("} {
		if strings.HasPrefix(c, hint) && strings.HasSuffix(c, ")") {
			c = strings.TrimSpace(c[len(hint) : len(c)-1]) // a branch hint tests what it wraps
		}
	}
	negated = strings.HasPrefix(c, "!")
	c = cscan.StripParens(strings.TrimSpace(strings.TrimPrefix(c, "!")))
	i := strings.IndexByte(c, '(')
	if i <= 0 || !strings.HasSuffix(c, ")") {
		return "", false, false
	}
	if r.p.actives[strings.TrimSpace(c[:i])] == nil {
		return "", false, false
	}
	arg := c[i+1 : len(c)-1]
	return r.canonKey(queueKey(arg, f.vt, f.Name), f.File), negated, true
}

// movedByContext reports whether guard g of a wake-up (or an exit) in f
// picks the context it runs in while f defers work on the other path:
// g (an if, or the else of one) tests only the execution context, and f
// queues work (schedule_work(), queue_work(), the deferrals table). The
// wake-up is then moved to the deferred work, not lost; without a
// deferral a context test is a gate like any other.
func (r *checker) movedByContext(f *wfunc, g cscan.Guard) bool {
	cond := g.Cond
	if g.Kind == "else" {
		cond = elseCond(f, g)
	} else if g.Kind != "if" {
		return false
	}
	if cond == "" || !r.contextGate(cond) || f.F == nil {
		return false
	}
	for _, c := range f.F.Calls {
		if r.p.deferQueue[c.Name] != nil {
			return true
		}
	}
	return false
}

// contextGate reports whether every term of cond tests the context the
// code runs in (the table's context_tests: in_hardirq(), irqs_disabled()):
// the branch picks where the work runs, not whether it happens.
func (r *checker) contextGate(cond string) bool {
	terms := []string{cond}
	for i := 0; i < len(terms); i++ {
		t := cscan.StripParens(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(terms[i]), "!")))
		parts := splitTop(t, "||")
		if len(parts) == 1 {
			parts = splitTop(t, "&&")
		}
		if len(parts) > 1 {
			terms = append(terms, parts...)
			continue
		}
		m := gateCallRe.FindStringSubmatch(t)
		if m == nil || !r.p.contextTests[m[1]] || !strings.HasSuffix(t, ")") || strings.Index(t, m[1]) != 0 {
			return false
		}
	}
	return true
}

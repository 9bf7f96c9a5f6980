package wakeup

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A wake-up decided by whether another queue has sleepers. "if
// (waitqueue_active(&ctx->wait)) wake_up(&ctx->wait); else
// eventfd_signal(...)" wakes the eventfd's waiters only while nobody
// sleeps on ctx->wait: the two queues' sleepers are different tasks (a
// thread in io_getevents(), an event loop polling the eventfd), and the
// test of one says nothing about the other. Where the patch puts a
// wake-up under such a test, the waiters of its own queue miss the
// events that happen while the other queue has sleepers (or while it has
// none).

// otherQueueGate is a branch that decides a wake-up by a sleeper test of
// another queue.
type otherQueueGate struct {
	guard cscan.Guard
	key   string
	// whenEmpty: the wake-up runs when the other queue has no sleepers.
	whenEmpty bool
	line      int
}

// otherQueueGates returns the branches among s's guards that test
// whether another queue than s's has sleepers: an if whose condition is
// the test, or the else of one.
func (r *checker) otherQueueGates(f *wfunc, s *wsite) []otherQueueGate {
	var elses map[int]*cscan.IfStmt
	var out []otherQueueGate
	for _, g := range s.Call.Guards {
		cond, line, flip := g.Cond, g.Line, false
		switch g.Kind {
		case "if":
		case "else":
			if elses == nil {
				elses = elseIfs(f)
			}
			i := elses[g.Line]
			if i == nil {
				continue
			}
			cond, line, flip = i.Cond, i.Line, true
		default:
			continue
		}
		// Both queues named as members (a helper handed the object that
		// holds the queue, skwq_has_sleeper(wq), names no other one).
		k, neg, ok := r.activeCheck(cond, f)
		if !ok || k == s.Q || keyField(k) == "" || keyField(s.Q) == "" || keyField(k) == keyField(s.Q) {
			continue
		}
		out = append(out, otherQueueGate{guard: g, key: k, whenEmpty: neg != flip, line: line})
	}
	return out
}

// sleeperGateGuards returns the guards of s in f that checkConditional
// leaves to others: the branches of otherQueueGates (checkOtherQueueGate),
// and the else of a sleeper test of s's own queue (the waitqueue-active
// rule's, as the if of one is). None without f.
func (r *checker) sleeperGateGuards(f *wfunc, s *wsite) map[cscan.Guard]bool {
	out := map[cscan.Guard]bool{}
	if f == nil || s == nil {
		return out
	}
	for _, g := range r.otherQueueGates(f, s) {
		out[g.guard] = true
	}
	var elses map[int]*cscan.IfStmt
	for _, g := range s.Call.Guards {
		if g.Kind != "else" {
			continue
		}
		if elses == nil {
			elses = elseIfs(f)
		}
		if i := elses[g.Line]; i != nil && r.isActiveCheckOf(i.Cond, s.Q, f) {
			out[g] = true
		}
	}
	return out
}

// elseIfs maps the line of each else of f to its if statement.
func elseIfs(f *wfunc) map[int]*cscan.IfStmt {
	out := map[int]*cscan.IfStmt{}
	if f.F == nil || f.F.Body == nil {
		return out
	}
	cscan.Inspect(f.F.Body, func(st cscan.Stmt) {
		if i, ok := st.(*cscan.IfStmt); ok && i.ElseLine != 0 {
			out[i.ElseLine] = i
		}
	})
	return out
}

// checkOtherQueueGate reports wake-up n (o its old version) that the
// patch put under a sleeper test of another queue.
func (r *checker) checkOtherQueueGate(old, nw *wfunc, o, n *wsite) {
	gates := r.otherQueueGates(nw, n)
	if len(gates) == 0 {
		return
	}
	had := map[string]bool{}
	if old != nil && o != nil {
		for _, g := range r.otherQueueGates(old, o) {
			had[fmt.Sprint(g.key, g.whenEmpty)] = true
		}
	}
	for _, g := range gates {
		if had[fmt.Sprint(g.key, g.whenEmpty)] || !nw.changed(g.line) && !nw.changed(g.guard.Line) && !n.Changed() {
			continue
		}
		waiters := r.otherWaiters(n.Q, n.Fn.Name)
		if len(waiters) == 0 {
			return
		}
		r.reportOtherQueueGate(o, n, g, pickWaiter(waiters, "", n.Fn.File))
		return
	}
}

// reportOtherQueueGate makes the risk of wake-up n gated by g.
func (r *checker) reportOtherQueueGate(o, n *wsite, g otherQueueGate, w *wsite) {
	when, other := "nobody sleeps on "+g.key, "a task sleeps on "+g.key
	if !g.whenEmpty {
		when, other = "a task sleeps on "+g.key, "nobody sleeps on "+g.key
	}
	f := report.Finding{
		Category: CategoryRemoved,
		Severity: report.SeverityRisk,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Message:  fmt.Sprintf("wake-up of %s in %s() now happens only while %s", n.Q, n.Fn.Name, when),
		Evidence: []string{n.Fn.evidence(g.line), n.Fn.evidence(n.Line())},
	}
	if o != nil {
		f.Old = []string{o.Fn.evidence(o.Line())}
	}
	f.Chain = append(f.Chain, step(w, "waits: "+w.Text()),
		report.Step{Func: n.Fn.Name, File: n.Fn.File, Line: g.line, What: "tests the sleepers of another queue: " + g.key},
		report.Step{Func: n.Fn.Name, File: n.Fn.File, Line: n.Line(), What: "wakes only in that branch: " + n.Text()})
	f.Evidence = append(f.Evidence, interleaving(w.Fn.Name+"()", n.Fn.Name+"()", [][2]string{
		{w.Text(), ""},
		{"  condition false: sleeps", ""},
		{"", "(" + other + ")"},
		{"", "tests " + g.key + ": takes the other branch"},
		{"not woken; sleeps on although its condition holds", "  (no wake-up of " + n.Q + ")"},
	})...)
	f.Explanation = fmt.Sprintf("%s() now wakes %s only while %s. Whether a task sleeps on %s says nothing about %s's own waiters: "+
		"%s waits for %s on %s, and misses every event that comes while %s. Wake %s whatever the other queue holds "+
		"(its own waitqueue_active() or wq_has_sleeper() test, if any, belongs to it).",
		n.Fn.Name, n.Q, when, g.key, n.Q, siteWhere(w), condOrState(w), n.Q, other, n.Q)
	r.add(f)
}

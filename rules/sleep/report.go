package sleep

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// patchOnlyReverse says what the hunks show about a function that newly
// may sleep when no tree is available for its callers.
func (r *checker) patchOnlyReverse(nf, of *cscan.Func, proof *lockctx.Reach) {
	name := nf.Name + "()"
	r.p.Note(fmt.Sprintf("sleep-in-atomic: callers of %s were not checked: no --tree", name))
	var hints []string
	var weak []string
	for _, d := range proof.Drops {
		if d.Soft {
			continue
		}
		if !r.startVisible(nf, d.Steps[0].Line) {
			last := d.Steps[len(d.Steps)-1]
			weak = append(weak, fmt.Sprintf("the lines the hunks show leave a %s with %s at %s:%d and none enters it before",
				lockctx.KindName(d.Kind), last.What, last.File, last.Line))
			continue
		}
		hints = append(hints, fmt.Sprintf("it leaves an atomic context it did not enter (%s: %s at %s:%d), so its callers are in it",
			lockctx.KindName(d.Kind), d.Steps[len(d.Steps)-1].What, d.Steps[len(d.Steps)-1].File, d.Steps[len(d.Steps)-1].Line))
	}
	if of != nil {
		var oldKinds []string
		for _, c := range of.Calls {
			if a := r.m.Classify(c); a.Op == lockmodel.Take && !hasCall(nf, c.Name) {
				oldKinds = append(oldKinds, fmt.Sprintf("the old version entered a %s there (%s)", lockctx.KindName(a.Kind), lockctx.CallText(c)))
			}
		}
		hints = append(hints, oldKinds...)
	}
	if len(hints) == 0 {
		return
	}
	hints = append(hints, weak...)
	last := proof.Steps[len(proof.Steps)-1]
	r.p.Report(report.Finding{
		Category:  CategoryNeedsTree,
		Severity:  report.SeverityNote,
		File:      nf.File,
		Func:      nf.Name,
		Line:      proof.Steps[0].Line,
		Key:       proof.Prim,
		NeedsTree: true,
		Message:   fmt.Sprintf("%s may sleep now (%s); its callers, outside the patch, were not checked", name, chainText(proof.Steps)),
		Explanation: fmt.Sprintf("%s now reaches %s, which %s (%s:%d). %s. The bot saw only the patch, not the callers of %s "+
			"in the tree, so it could not tell whether any of them runs in atomic context. Please check each caller of %s: "+
			"none may hold a spinlock, rwlock or the RCU read lock around the call, or call it with interrupts, bottom halves "+
			"or preemption disabled; if one does, the sleeping call must move out of that section.",
			name, last.What, proof.Why, last.File, last.Line, capitalize(strings.Join(hints, "; ")), name, name),
		Chain: proof.Steps,
	})
}

func hasCall(fn *cscan.Func, name string) bool {
	for _, c := range fn.Calls {
		if c.Name == name {
			return true
		}
	}
	return false
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// maxChainShown is how many calls of a chain a message prints; longer
// chains keep their ends and elide the middle (Finding.Chain keeps every
// step).
const maxChainShown = 8

// chainText renders "a() -> b() -> mutex_lock_nested()", with the middle
// of long chains elided.
func chainText(steps []report.Step) string {
	var parts []string
	for _, s := range steps {
		w := s.What
		switch {
		case strings.HasPrefix(w, "calls "):
			w = strings.TrimPrefix(w, "calls ")
			if i := strings.Index(w, " (assigned at"); i > 0 {
				w = w[:i]
			}
		case strings.Contains(w, "("):
			w = w[:strings.Index(w, "(")] + "()"
		}
		parts = append(parts, w)
	}
	if n := len(parts); n > maxChainShown {
		head, tail := maxChainShown/2, maxChainShown-maxChainShown/2
		mid := fmt.Sprintf("... (%d more calls)", n-head-tail)
		parts = append(append(parts[:head:head], mid), parts[n-tail:]...)
	}
	return strings.Join(parts, " -> ")
}

// report adds one finding: in fn at line, contexts st held, proof the
// sleeping chain (outermost first, starting in fn). callee names the
// function that newly may sleep for reverse findings ("" for forward).
func (r *checker) report(fn *cscan.Func, line int, st lockctx.State, proof *lockctx.Reach, callee string) {
	f, ok := r.finding(fn, line, st, proof, callee)
	switch {
	case !ok:
	case callee != "":
		r.holdReverse(f, fn.Name, callee) // callers.go
	default:
		r.p.Report(f)
	}
}

// finding is report's finding; false when there is none to report (the
// sleeping primitive is safe in the context: in interrupt context, or at
// restart or power-off).
func (r *checker) finding(fn *cscan.Func, line int, st lockctx.State, proof *lockctx.Reach, callee string) (report.Finding, bool) {
	lift := r.liftMatters(fn, st.Held, proof, callee)
	if r.interruptSafe(proof.Prim, st) || r.shutdownSafe(proof, st) || r.sleptBefore(fn, st.Held) || r.bootContext(st) || lift == liftNone {
		return report.Finding{}, false
	}
	sev := report.SeverityNote
	if st.AnyMust() && !proof.Weak && lift != liftNote {
		sev = report.SeverityRisk
	}
	var steps []report.Step
	var ctxs, keys []string
	hs := append([]lockctx.Held(nil), st.Held...)
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].At.Line < hs[j].At.Line })
	addStep := func(s report.Step) {
		for _, x := range steps {
			if x == s {
				return
			}
		}
		steps = append(steps, s)
	}
	for _, h := range hs {
		addStep(h.At)
		for _, v := range h.Via {
			addStep(v)
		}
		c := lockctx.KindName(h.Kind)
		if h.Key != "" {
			c += " " + h.Key
		}
		where := fmt.Sprintf("%s at %s:%d", strings.TrimPrefix(h.At.What, "calls "), h.At.File, h.At.Line)
		if len(h.Via) > 0 {
			where += " (" + chainText(append([]report.Step{h.At}, h.Via...)) + ")"
		}
		if !h.Must {
			where += ", on some paths"
		}
		if h.Why != "" {
			// An implicit context: the function runs in it because of how
			// it is registered.
			ctxs = append(ctxs, fmt.Sprintf("%s: %s at %s:%d (%s)", c, h.At.What, h.At.File, h.At.Line, h.Why))
		} else {
			ctxs = append(ctxs, c+" entered by "+where)
		}
		k := h.Key
		if k == "" {
			k = strings.TrimPrefix(h.At.What, "calls ")
		}
		if h.Why != "" && h.Key == "" {
			k = implicitKey(h.At.What)
		}
		keys = append(keys, k)
	}
	steps = append(steps, proof.Steps...)
	last := proof.Steps[len(proof.Steps)-1]
	target := fn
	tLine := line
	if callee != "" {
		// Reverse finding: it belongs to the function that newly sleeps.
		for _, s := range proof.Steps {
			if s.Func == callee {
				target = &cscan.Func{Name: s.Func, File: s.File}
				tLine = s.Line
				break
			}
		}
	}
	msg := findingMessage(fn, proof, hs, keys, callee)
	expl := fmt.Sprintf("%s (%s:%d) %s; it is reached from %s() with %s.", last.What, last.File, last.Line, proof.Why, fn.Name, strings.Join(ctxs, "; "))
	for _, d := range proof.Drops {
		if d.Kind != "rcu" {
			continue
		}
		rs := d.Steps[len(d.Steps)-1]
		where := fmt.Sprintf("%s at %s:%d", rs.What, rs.File, rs.Line)
		re := ""
		for _, t := range proof.Retakes {
			if t.Kind == d.Kind {
				ts := t.Steps[len(t.Steps)-1]
				re = fmt.Sprintf(" and re-takes it with %s at %s:%d", ts.What, ts.File, ts.Line)
			}
		}
		expl += fmt.Sprintf(" %s() drops an RCU read lock it did not take (%s)%s before sleeping: this unbalanced "+
			"rcu_read_unlock()/rcu_read_lock() pair does not end %s()'s read-side critical section, and pointers "+
			"the caller holds under RCU are unprotected while it sleeps.", d.Steps[0].Func, where, re, fn.Name)
	}
	if !st.AnyMust() {
		expl += " The context is held on some paths only."
	}
	expl += r.chosenBranch(fn, st, proof)
	if callee != "" {
		if why := r.alreadySleeps(fn.Name, proof.Steps, callee); why != "" {
			sev = report.SeverityNote
			expl += " " + why
		}
	}
	if proof.Weak {
		expl += " A call in the chain goes through a function pointer and not every function assigned to it sleeps."
	}
	return report.Finding{
		Category:    CategoryChain,
		Severity:    sev,
		File:        target.File,
		Func:        target.Name,
		Line:        tLine,
		Key:         strings.Join(uniq(keys), ", "),
		Message:     msg,
		Explanation: expl,
		Chain:       steps,
	}, true
}

// implicitKey names an implicit context's registration: "timer_setup()"
// for "registered by timer_setup(&t, f, 0)", "hrtimer.function" for
// "assigned to hrtimer.function".
func implicitKey(what string) string {
	if rest, ok := strings.CutPrefix(what, "registered by "); ok {
		if i := strings.Index(rest, "("); i > 0 {
			return rest[:i] + "()"
		}
		return rest
	}
	for _, pre := range []string{"recovers its object with ", "asserts "} {
		rest, ok := strings.CutPrefix(what, pre)
		if !ok {
			continue
		}
		if i := strings.Index(rest, "("); i > 0 {
			return rest[:i] + "()"
		}
	}
	return strings.TrimPrefix(what, "assigned to ")
}

// sleptBefore reports whether every context of hs is lifted for a
// callback that already slept (Held.UnlessSleeps), and fn, before the
// patch, already ran in such a context and slept on a chain that is sure:
// not through a function pointer some implementations of which do not
// sleep, not taken for some parameter values only. A function the patch
// adds, or newly registers, did not sleep there before.
func (r *checker) sleptBefore(fn *cscan.Func, hs []lockctx.Held) bool {
	if len(hs) == 0 || r.p.Index == nil {
		return false
	}
	for _, h := range hs {
		if !h.UnlessSleeps {
			return false
		}
	}
	of := r.preimage(fn)
	if of == nil || !slices.ContainsFunc(r.oldR.Implicit(of), func(h lockctx.Held) bool { return h.UnlessSleeps }) {
		return false
	}
	s := r.oldR.SummaryOf(of)
	return s.Reach != nil && !s.Reach.Weak && s.Reach.Cond == nil
}

// preimage returns fn before the patch: the patch's old side when the
// patch changes it, the tree's when it does not; nil for a function the
// tree did not have.
func (r *checker) preimage(fn *cscan.Func) *cscan.Func {
	if of, ok := r.oldSide(fn.Name, fn.File); ok {
		return of
	}
	return treeDef(r.oldR.Index(), fn.Name, fn.File)
}

// findingMessage is a finding's one-line message: fn may sleep in the
// contexts hs (keys, their objects), or, for a reverse finding, callee
// may now sleep and fn calls it in them.
func findingMessage(fn *cscan.Func, proof *lockctx.Reach, hs []lockctx.Held, keys []string, callee string) string {
	msg := fmt.Sprintf("%s() may sleep (%s) in atomic context (%s held in %s())", fn.Name, chainText(proof.Steps), strings.Join(uniq(kindsOf(hs)), ", "), fn.Name)
	if implicitOnly(hs) {
		// It runs in the context because of how it is registered: no
		// lock is taken in it.
		msg = fmt.Sprintf("%s() may sleep (%s) in atomic context (%s: %s)", fn.Name, chainText(proof.Steps), strings.Join(uniq(kindsOf(hs)), ", "), strings.Join(uniq(keys), ", "))
	}
	if callee != "" {
		from := proof.Steps
		for i, s := range proof.Steps {
			if s.Func == callee {
				from = proof.Steps[i:]
				break
			}
		}
		msg = fmt.Sprintf("%s() may sleep now (%s) but %s() calls it in atomic context (%s)", callee, chainText(from), fn.Name, strings.Join(uniq(kindsOf(hs)), ", "))
	}
	return msg
}

// implicitOnly reports whether every context of hs is implicit: the
// function runs in it because of how it is registered.
func implicitOnly(hs []lockctx.Held) bool {
	for _, h := range hs {
		if h.Why == "" {
			return false
		}
	}
	return len(hs) > 0
}

func kindsOf(hs []lockctx.Held) []string {
	var out []string
	for _, h := range hs {
		out = append(out, lockctx.KindName(h.Kind))
	}
	return out
}

func uniq(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

package wakeup

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Wake-up order (category wake-order): a task woken directly
// (wake_up_process, wake_q_add) checks a field its waker publishes with a
// store-release ("waiter->task = NULL", "q->lock_ptr = NULL",
// "this->state = STATE_READY"). Two orders are wrong:
//   - the wake-up before the publishing store: the task can run (a wake_q
//     of another waker already holding it wakes it at once), see the old
//     value and sleep again; the later wake_q_add finds it queued and is
//     dropped, so nobody wakes it again;
//   - the task read through the published entry after the store: once the
//     sleeper sees the store it may return, and its on-stack entry is gone.

// samePath reports whether every guard of the earlier call a also guards
// b: b runs whenever a ran (both in the same branch).
func samePath(a, b cscan.Call) bool { return guardsWithin(a.Guards, b.Guards) }

// guardsWithin reports whether every guard of gs is one of outer's: code
// under gs runs whenever code under outer does.
func guardsWithin(gs, outer []cscan.Guard) bool {
	for _, g := range gs {
		if !slices.ContainsFunc(outer, func(o cscan.Guard) bool { return o.Line == g.Line && o.Kind == g.Kind }) {
			return false
		}
	}
	return true
}

// isPublish reports whether c is a release store (smp_store_release,
// atomic_set_release): a store the woken side acquires.
func (r *checker) isPublish(c cscan.Call) bool {
	return r.p.ordering(c.Name) == "release" && r.p.unlinks[c.Name] == nil && len(c.Args) >= 2
}

// basePtr returns the pointer a member expression goes through
// ("&this->state" -> "this"), "" for a plain name.
func basePtr(arg string) string {
	a := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(arg), "&"))
	a = cscan.StripParens(a)
	i := strings.Index(a, "->")
	if i <= 0 {
		return ""
	}
	b := strings.TrimSpace(a[:i])
	if !identRe.MatchString(b) {
		return ""
	}
	return b
}

// wakeBeforePublish returns the pairs (wake-up, later publishing store) of
// f on one path.
func (r *checker) wakeBeforePublish(f *wfunc) [][2]cscan.Call {
	if f == nil || f.F == nil {
		return nil
	}
	var out [][2]cscan.Call
	for i, w := range f.F.Calls {
		if r.p.taskWakers[w.Name] == nil {
			continue
		}
		for _, s := range f.F.Calls[i+1:] {
			if s.Line > w.Line && r.isPublish(s) && samePath(w, s) {
				out = append(out, [2]cscan.Call{w, s})
				break
			}
		}
	}
	return out
}

// checkWakeOrder reports wake-ups the patch moved before the store the
// woken task checks, and tasks read through a published entry.
func (r *checker) checkWakeOrder() {
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		if nw == nil || nw.F == nil {
			continue
		}
		oldPairs := map[string]bool{}
		for _, p := range r.wakeBeforePublish(old) {
			oldPairs[p[0].Name+"|"+strings.Join(strings.Fields(p[1].Args[0]), "")] = true
		}
		for _, p := range r.wakeBeforePublish(nw) {
			w, s := p[0], p[1]
			if !nw.changed(w.Line) && !nw.changed(s.Line) {
				continue
			}
			if oldPairs[w.Name+"|"+strings.Join(strings.Fields(s.Args[0]), "")] {
				continue
			}
			r.reportWakeBeforePublish(nw, w, s)
		}
		r.checkReadAfterPublish(nw)
	}
}

func (r *checker) reportWakeBeforePublish(f *wfunc, w, s cscan.Call) {
	tw := r.p.taskWakers[w.Name]
	task := ""
	if tw.Task < len(w.Args) {
		task = strings.TrimSpace(w.Args[tw.Task])
	}
	fields := fieldsIn(s.Args[0])
	peers := r.fieldPeers(f, fields, "release")
	wt, st := strings.TrimSpace(f.text(w.Line)), strings.TrimSpace(f.text(s.Line))
	fr := report.Finding{
		Category: CategoryWakeOrder,
		Severity: report.SeverityRisk,
		File:     f.File, Func: f.Name, Line: w.Line,
		Message:  fmt.Sprintf("%s() wakes %s (%s) before publishing %s with %s", f.Name, task, w.Name, strings.TrimSpace(s.Args[0]), s.Name),
		Evidence: []string{f.evidence(w.Line), f.evidence(s.Line)},
	}
	fr.Chain = append(fr.Chain, report.Step{Func: f.Name, File: f.File, Line: w.Line, What: "wake-up issued first: " + wt})
	fr.Chain = append(fr.Chain, report.Step{Func: f.Name, File: f.File, Line: s.Line, What: "state the woken task checks, published after: " + st})
	sleeper, check := "the woken task", "checks "+strings.Join(fields, ", ")+": old value"
	if len(peers) > 0 {
		p := peers[0]
		sleeper = p.fn + "()"
		check = p.text + " : old value"
		fr.Chain = append(fr.Chain, report.Step{Func: p.fn, File: p.file, Line: p.line, What: "the sleeper's check: " + p.text})
	}
	early := "is woken by it"
	if tw.Deferred {
		early = "is already on another waker's wake_q, which wakes it now"
	}
	fr.Evidence = append(fr.Evidence, interleaving(f.Name+"()", sleeper, [][2]string{
		{wt, ""},
		{"", "(" + early + ")"},
		{"", check},
		{"", "sleeps again"},
		{st, ""},
		{"  -> no further wake-up for it", "sleeps forever"},
	})...)
	fr.Explanation = fmt.Sprintf("%s() issues %s for %s before the store-release of %s that the woken task checks. The task can run before the store (%s), see the old value and go back to sleep; ", f.Name, w.Name, task, strings.TrimSpace(s.Args[0]), early)
	if tw.Deferred {
		fr.Explanation += "this wake_q_add() found it already queued and is dropped, so nobody wakes it again. "
	} else {
		fr.Explanation += "this wake-up is spent and nobody wakes it again. "
	}
	fr.Explanation += "Publish the state first and wake afterwards (take a task reference before the store and use wake_q_add_safe() after it)."
	r.add(fr)
}

// checkReadAfterPublish reports a task woken through the entry it was just
// told about: after smp_store_release(&P->f, v) the sleeper owning *P may
// return, so P must not be dereferenced to find the task.
func (r *checker) checkReadAfterPublish(f *wfunc) {
	for i, s := range f.F.Calls {
		if !r.isPublish(s) {
			continue
		}
		p := basePtr(s.Args[0])
		if p == "" {
			continue
		}
		for _, w := range f.F.Calls[i+1:] {
			tw := r.p.taskWakers[w.Name]
			if tw == nil || w.Line <= s.Line || tw.Task >= len(w.Args) || !samePath(s, w) {
				continue
			}
			if basePtr(w.Args[tw.Task]) != p {
				continue
			}
			if !f.changed(w.Line) && !f.changed(s.Line) {
				continue
			}
			st, wt := strings.TrimSpace(f.text(s.Line)), strings.TrimSpace(f.text(w.Line))
			fr := report.Finding{
				Category: CategoryWakeOrder,
				Severity: report.SeverityRisk,
				File:     f.File, Func: f.Name, Line: w.Line,
				Message:  fmt.Sprintf("%s() reads the task to wake through %s after publishing %s: the sleeper may have returned and freed its entry", f.Name, p, strings.TrimSpace(s.Args[0])),
				Evidence: []string{f.evidence(s.Line), f.evidence(w.Line)},
			}
			fr.Chain = append(fr.Chain, report.Step{Func: f.Name, File: f.File, Line: s.Line, What: "publishes the sleeper's state: " + st})
			fr.Chain = append(fr.Chain, report.Step{Func: f.Name, File: f.File, Line: w.Line, What: "then dereferences " + p + ": " + wt})
			fr.Evidence = append(fr.Evidence, interleaving(f.Name+"()", "the sleeper owning *"+p, [][2]string{
				{st, ""},
				{"", "sees the new state (spurious wake-up, timeout)"},
				{"", "returns: *" + p + " (on its stack) is gone"},
				{wt, ""},
				{"  -> reads freed stack memory", ""},
			})...)
			fr.Explanation = fmt.Sprintf("Once %s is stored, the sleeper that owns *%s can see it without being woken (a spurious wake-up or a timeout), return and reuse the stack frame that holds the entry. %s then reads %s through %s: a use-after-return. Read the task pointer (and take a reference with get_task_struct()) before the store, and wake that saved pointer (wake_q_add_safe()).",
				strings.TrimSpace(s.Args[0]), p, w.Name, strings.TrimSpace(w.Args[tw.Task]), p)
			r.add(fr)
			break
		}
	}
}

package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Custom wake functions (category wake-function): a wait entry's func
// runs in the waker with the entry still on the sleeper's stack. The
// sleeper leaves through finish_wait(), whose lockless
// list_empty_careful() lets it return as soon as it sees its entry
// unlinked, without the queue lock. So the wake function must unlink the
// entry last, after every use of the entry and of what it points to, and
// with release ordering (list_del_init_careful()); an unlink before the
// wake-up of the task, or a plain list_del_init(), lets the sleeper return
// and reuse its stack while the waker still reads it.

var (
	wakeEntryParamRe = regexp.MustCompile(`(?:struct\s+wait_queue_entry|wait_queue_entry_t)\s*\*\s*([A-Za-z_]\w*)`)
	containerOfRe    = regexp.MustCompile(`([A-Za-z_]\w*)\s*=\s*container_of\(\s*([A-Za-z_]\w*)`)
	voidPtrParamRe   = regexp.MustCompile(`,\s*void\s*\*\s*[A-Za-z_]\w*\s*\)`)
)

// wakeFuncEntry returns the wait-entry parameter of a wake function (a
// function taking a wait_queue_entry pointer and a key), "" otherwise.
func wakeFuncEntry(f *wfunc) string {
	if f == nil || f.F == nil {
		return ""
	}
	h := f.header()
	// wait_queue_func_t: (entry, mode, flags, key), the key a void
	// pointer whatever its parameter's name (arg, data).
	if !strings.Contains(h, "key") && !voidPtrParamRe.MatchString(h) {
		return ""
	}
	m := wakeEntryParamRe.FindStringSubmatch(h)
	if m == nil {
		return ""
	}
	return m[1]
}

// entryAliases returns the entry parameter and the variables derived from
// it with container_of().
func entryAliases(f *wfunc, entry string) []string {
	out := []string{entry}
	for _, t := range f.lines {
		if m := containerOfRe.FindStringSubmatch(t); m != nil && m[2] == entry {
			out = appendUnique(out, m[1])
		}
	}
	return out
}

// usesAny reports whether expression text dereferences one of the names.
func usesAny(text string, names []string) bool {
	for _, n := range names {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(n) + `\s*(->|\.)`).MatchString(text) {
			return true
		}
	}
	return false
}

// entryUnlinks returns f's unlinks of the entry (or an alias) "->entry".
func (r *checker) entryUnlinks(f *wfunc, names []string) []cscan.Call {
	var out []cscan.Call
	for _, c := range f.F.Calls {
		if r.p.unlinks[c.Name] == nil || len(c.Args) == 0 {
			continue
		}
		if usesAny(c.Args[0], names) {
			out = append(out, c)
		}
	}
	return out
}

// checkWakeFuncs checks the wake functions the patch changes.
func (r *checker) checkWakeFuncs() {
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		entry := wakeFuncEntry(nw)
		if entry == "" && nw != nil {
			// A function the hunks show only part of: its signature is
			// the tree's.
			entry = wakeFuncEntry(r.wholeNew(nw))
		}
		if entry == "" {
			continue
		}
		names := entryAliases(nw, entry)
		var oldUnlinks []cscan.Call
		if old != nil && old.F != nil {
			oldUnlinks = r.entryUnlinks(old, entryAliases(old, entry))
		}
		r.checkRefBeforeReturn(old, nw)
		r.checkWakeClaim(old, nw)
		r.checkWakeReturns(old, nw)
		r.checkWakeContract(old, nw)
		for _, u := range r.entryUnlinks(nw, names) {
			if late := r.useAfterUnlink(nw, u, names); late != nil {
				if nw.changed(u.Line) || nw.changed(late.Line) {
					r.reportEarlyUnlink(nw, u, *late)
					continue
				}
			}
			if r.p.unlinks[u.Name].Careful || !nw.changed(u.Line) {
				continue
			}
			for _, o := range oldUnlinks {
				if r.p.unlinks[o.Name].Careful && old.changed(o.Line) {
					r.reportCarelessUnlink(old, nw, o, u)
					break
				}
			}
		}
	}
}

// useAfterUnlink returns the first call after the unlink u, on its path,
// that dereferences the entry or its container (the task to wake, the
// data the sleeper reads), nil if none.
func (r *checker) useAfterUnlink(f *wfunc, u cscan.Call, names []string) *cscan.Call {
	// A release store through the entry after the unlink is a hand-off:
	// the sleeper waits for that store, not for list_empty_careful().
	for _, c := range f.F.Calls {
		if c.Line > u.Line && r.isPublish(c) && usesAny(c.Args[0], names) {
			return nil
		}
	}
	for _, c := range f.F.Calls {
		if c.Line <= u.Line || !samePath(u, c) || r.p.unlinks[c.Name] != nil {
			continue
		}
		for _, a := range c.Args {
			if usesAny(a, names) {
				c := c
				return &c
			}
		}
		if r.p.taskWakers[c.Name] != nil || c.Name == "default_wake_function" {
			for _, a := range c.Args {
				if usesAny(a, names) || strings.TrimSpace(a) == names[0] {
					c := c
					return &c
				}
			}
		}
	}
	return nil
}

func (r *checker) reportEarlyUnlink(f *wfunc, u, late cscan.Call) {
	ut, lt := strings.TrimSpace(f.text(u.Line)), strings.TrimSpace(f.text(late.Line))
	fr := report.Finding{
		Category: CategoryWakeFunc,
		Severity: report.SeverityRisk,
		File:     f.File, Func: f.Name, Line: u.Line,
		Message:  fmt.Sprintf("wake function %s() unlinks the wait entry before its last use of it (%s)", f.Name, late.Name),
		Evidence: []string{f.evidence(u.Line), f.evidence(late.Line)},
	}
	fr.Chain = append(fr.Chain, report.Step{Func: f.Name, File: f.File, Line: u.Line, What: "entry unlinked: " + ut})
	fr.Chain = append(fr.Chain, report.Step{Func: f.Name, File: f.File, Line: late.Line, What: "entry still used: " + lt})
	fr.Evidence = append(fr.Evidence, interleaving(f.Name+"() (waker)", "the sleeper", [][2]string{
		{ut, ""},
		{"", "finish_wait(): list_empty_careful() sees it unlinked"},
		{"", "returns; the entry's stack frame is reused"},
		{lt, ""},
		{"  -> reads the dead frame", ""},
	})...)
	fr.Explanation = fmt.Sprintf("%s() takes the entry off the queue with %s before %s, which still reads the entry (or the sleeper's data it is embedded in). finish_wait() on the sleeper side checks list_empty_careful() without the queue lock, so the sleeper can return (after a spurious wake-up, a signal or a timeout) as soon as the unlink is visible, and its stack frame is gone when the waker reads it. Unlink last, with list_del_init_careful(), after waking the task.",
		f.Name, u.Name, late.Name)
	r.add(fr)
}

func (r *checker) reportCarelessUnlink(old, nw *wfunc, o, u cscan.Call) {
	ut := strings.TrimSpace(nw.text(u.Line))
	fr := report.Finding{
		Category: CategoryWakeFunc,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: u.Line,
		Message:  fmt.Sprintf("wake function %s() unlinks the wait entry with %s instead of %s (no release ordering)", nw.Name, u.Name, o.Name),
		Evidence: []string{nw.evidence(u.Line)},
		Old:      []string{old.evidence(o.Line)},
	}
	fr.Chain = append(fr.Chain, report.Step{Func: nw.Name, File: nw.File, Line: u.Line, What: "plain unlink: " + ut})
	fr.Evidence = append(fr.Evidence, interleaving(nw.Name+"() (waker)", "the sleeper", [][2]string{
		{"wakes the task (reads the entry)", ""},
		{ut + " (may become visible first)", ""},
		{"", "finish_wait(): list_empty_careful() sees it unlinked"},
		{"", "returns; the entry's stack frame is reused"},
		{"  earlier accesses to the entry land late", ""},
	})...)
	fr.Explanation = fmt.Sprintf("finish_wait() lets the sleeper skip the queue lock when list_empty_careful() sees its entry unlinked, and then return and reuse the stack frame holding the entry. %s() unlinks the entry with %s, a plain store that can become visible before the wake function's earlier accesses to the entry; %s has the release ordering (smp_store_release) that list_empty_careful()'s acquire pairs with. Keep %s.",
		nw.Name, u.Name, o.Name, o.Name)
	r.add(fr)
}

// checkRefBeforeReturn reports a task reference a wake function now takes
// before a return that neither drops nor hands it on: the wake function
// runs again for every wake-up while the entry stays queued, and each run
// leaks one more reference.
func (r *checker) checkRefBeforeReturn(old, nw *wfunc) {
	if nw.F == nil {
		return
	}
	for _, g := range nw.F.Calls {
		if !r.p.taskGets[g.Name] || !nw.changed(g.Line) {
			continue
		}
		for _, ret := range nw.F.Returns {
			if ret.Line <= g.Line {
				continue
			}
			onPath := true
			for _, gg := range g.Guards {
				found := false
				for _, rg := range ret.Guards {
					if rg.Kind == gg.Kind && rg.Line == gg.Line {
						found = true
					}
				}
				onPath = onPath && found
			}
			if !onPath {
				continue
			}
			dropped := false
			for _, c := range nw.F.Calls {
				if c.Line > g.Line && c.Line <= ret.Line && r.p.taskPuts[c.Name] {
					dropped = true
				}
			}
			if dropped {
				continue
			}
			// The old version took it after this return.
			if old != nil && old.F != nil {
				before := false
				for _, c := range old.F.Calls {
					if r.p.taskGets[c.Name] && old.changed(c.Line) {
						for _, oret := range old.F.Returns {
							if oret.Line < c.Line && normLine(old.text(oret.Line)) == normLine(nw.text(ret.Line)) {
								before = true
							}
						}
					}
				}
				if !before {
					continue
				}
			}
			gt, rt := strings.TrimSpace(nw.text(g.Line)), strings.TrimSpace(nw.text(ret.Line))
			f := report.Finding{
				Category: CategoryWakeFunc,
				Severity: report.SeverityRisk,
				File:     nw.File, Func: nw.Name, Line: g.Line,
				Message:  fmt.Sprintf("wake function %s() takes a task reference (%s) before a return that does not drop it (line %d)", nw.Name, g.Name, ret.Line),
				Evidence: []string{nw.evidence(g.Line), nw.evidence(ret.Line)},
			}
			f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: g.Line, What: "reference taken: " + gt})
			f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: ret.Line, What: "returns without dropping it: " + rt})
			f.Evidence = append(f.Evidence, interleaving(nw.Name+"() wake-up 1", nw.Name+"() wake-up 2", [][2]string{
				{gt, ""},
				{rt + " (entry stays queued)", ""},
				{"", gt},
				{"", rt + " : another reference leaked"},
			})...)
			f.Explanation = fmt.Sprintf("%s() is called for every wake-up of the queue while its entry stays queued. It now takes the task reference before the return at line %d, which leaves the entry queued without putting the reference; each such wake-up leaks one, and the task_struct is never freed. Take the reference after the early return, where the entry is unlinked and the task woken.",
				nw.Name, ret.Line)
			r.add(f)
			return
		}
	}
}

// claimSite is an assignment of a non-zero constant to the variable a
// wake function returns, with the conditions that lead to it.
type claimSite struct {
	line  int
	conds []string
}

var claimAssignRe = regexp.MustCompile(`^\s*([A-Za-z_]\w*)\s*=\s*(1|true)\s*;?\s*$`)

// claimSites returns where wake function f sets its returned variable v
// to a non-zero value (reporting "an exclusive waiter was woken"), with
// the conditions on the way, outermost first.
func claimSites(f *wfunc, v string) []claimSite {
	var out []claimSite
	var walk func(s cscan.Stmt, conds []string)
	walk = func(s cscan.Stmt, conds []string) {
		switch s := s.(type) {
		case *cscan.Block:
			blockConds(s, conds, walk)
		case *cscan.ExprStmt:
			if m := claimAssignRe.FindStringSubmatch(s.Text); m != nil && m[1] == v {
				out = append(out, claimSite{line: s.Line, conds: conds})
			}
		case *cscan.IfStmt:
			c := normLine(s.Cond)
			walk(s.Then, append(append([]string(nil), conds...), c))
			if s.Else != nil {
				walk(s.Else, append(append([]string(nil), conds...), "!("+c+")"))
			}
		case *cscan.LoopStmt:
			walk(s.Body, conds)
		case *cscan.SwitchStmt:
			walk(s.Body, append(append([]string(nil), conds...), "switch "+normLine(s.Cond)))
		case *cscan.ScopedGuardStmt:
			walk(s.Body, conds)
		}
	}
	if f.F != nil && f.F.Body != nil {
		walk(f.F.Body, nil)
	}
	return out
}

// blockConds calls f for each statement of block b with the conditions
// it runs under: conds, and in a switch body the case label it follows.
func blockConds(b *cscan.Block, conds []string, f func(st cscan.Stmt, conds []string)) {
	caseCond := ""
	for _, st := range b.Stmts {
		if c, ok := st.(*cscan.CaseStmt); ok {
			caseCond = "case " + c.Label
			continue
		}
		cs := conds
		if caseCond != "" {
			cs = append(append([]string(nil), conds...), caseCond)
		}
		f(st, cs)
	}
}

// returnedVar returns the variable a function returns on its last return,
// "" if it returns an expression.
func returnedVar(f *wfunc) string {
	if f.F == nil || len(f.F.Returns) == 0 {
		return ""
	}
	e := strings.TrimSpace(f.F.Returns[len(f.F.Returns)-1].Expr)
	if identRe.MatchString(e) {
		return e
	}
	return ""
}

// subsetOf reports whether every condition of a is in b.
func subsetOf(a, b []string) bool {
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

// checkWakeClaim reports a wake function that now reports a woken
// exclusive waiter (a non-zero return) under fewer conditions than
// before: __wake_up_common() counts it against nr_exclusive and stops, so
// the next exclusive entries miss events this one did not ask for.
func (r *checker) checkWakeClaim(old, nw *wfunc) {
	if old == nil || old.F == nil || nw.F == nil {
		return
	}
	v := returnedVar(nw)
	if v == "" || returnedVar(old) != v {
		return
	}
	var olds []claimSite
	for _, o := range claimSites(old, v) {
		if old.changed(o.line) {
			olds = append(olds, o) // the claims the patch replaced
		}
	}
	news := claimSites(nw, v)
	if len(olds) == 0 {
		return
	}
	for _, n := range news {
		if !nw.changed(n.line) {
			continue
		}
		wider := true
		for _, o := range olds {
			if !subsetOf(n.conds, o.conds) || len(n.conds) >= len(o.conds) {
				wider = false
			}
		}
		if !wider {
			continue
		}
		var dropped []string
		for _, o := range olds {
			for _, c := range o.conds {
				if !contains(n.conds, c) {
					dropped = appendUnique(dropped, c)
				}
			}
		}
		nt := strings.TrimSpace(nw.text(n.line))
		f := report.Finding{
			Category: CategoryWakeFunc,
			Severity: report.SeverityRisk,
			File:     nw.File, Func: nw.Name, Line: n.line,
			Message:  fmt.Sprintf("wake function %s() now reports an exclusive wake-up (%s) without checking %s", nw.Name, nt, strings.Join(dropped, ", ")),
			Evidence: []string{nw.evidence(n.line)},
		}
		for _, o := range olds {
			f.Old = append(f.Old, old.evidence(o.line))
		}
		f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: n.line, What: "claims the exclusive wake-up: " + nt})
		f.Evidence = append(f.Evidence, interleaving("__wake_up_common(nr_exclusive=1)", "the next exclusive entry", [][2]string{
			{nw.Name + "(): event it did not ask for", ""},
			{"  " + nt + ": counted as the one wake-up", ""},
			{"stops walking the queue", "asked for this event: not woken"},
		})...)
		f.Explanation = fmt.Sprintf("A wake function's non-zero return tells __wake_up_common() that an exclusive waiter was woken; with nr_exclusive == 1 the walk stops there. %s() now returns %s = 1 without the conditions it used to check (%s), so an entry that does not care about this event consumes the wake-up and the next exclusive entries, which do, are never woken. Report an exclusive wake-up only when this waiter will consume the event.",
			nw.Name, v, strings.Join(dropped, "; "))
		r.add(f)
		return
	}
}

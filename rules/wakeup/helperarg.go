package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Wake-up breadth chosen by a helper's argument (category
// wakeup-narrowed): put_entry(x, WAKE_ALL) -> put_entry(x, WAKE_NEXT),
// where the helper passes the argument down to the nr_exclusive of its
// wake-up (mode == WAKE_ALL ? 0 : 1). With a tree the argument is followed
// through up to two helpers and the count evaluated for both values.

// maxHelperDepth bounds how far an argument is followed into helpers.
const maxHelperDepth = 2

var ternaryRe = regexp.MustCompile(`^\(?\s*([A-Za-z_]\w*)\s*(==|!=)\s*([A-Za-z_]\w*)\s*\)?\s*\?\s*(\w+)\s*:\s*(\w+)$`)

// evalNr evaluates a wake-up's count expression with parameter p bound to
// value v: "p", or "p == X ? a : b". ok is false when it cannot tell.
func evalNr(expr, p, v string) (string, bool) {
	e := strings.TrimSpace(expr)
	if e == p {
		return v, true
	}
	m := ternaryRe.FindStringSubmatch(e)
	if m == nil || m[1] != p {
		return "", false
	}
	eq := v == m[3]
	if m[2] == "!=" {
		eq = !eq
	}
	if eq {
		return m[4], true
	}
	return m[5], true
}

// breadthParam follows parameter index i of helper name down to a wake-up
// whose count uses it; it returns that wake-up and the count expression's
// parameter name there.
func (r *checker) breadthParam(name, file string, i, depth int) (*wsite, string, string) {
	if r.tree == nil || depth > maxHelperDepth || r.p.isPrimitive(name) {
		return nil, "", ""
	}
	fns := cscan.PickDefs(r.pass.Index.Funcs(name), file)
	if len(fns) == 0 || fns[0].End-fns[0].Start > 60 {
		return nil, "", ""
	}
	v := r.tree.view(fns[0])
	params := paramNames(v.header(), name)
	if i >= len(params) || params[i] == "" {
		return nil, "", ""
	}
	p := params[i]
	for _, s := range v.sitesOn(siteWake, "") {
		w := r.p.waker(s.Call.Name)
		if w == nil || w.NrArg == nil || *w.NrArg >= len(s.Call.Args) {
			continue
		}
		if containsWord(s.Call.Args[*w.NrArg], p) {
			return s, s.Call.Args[*w.NrArg], p
		}
	}
	for _, c := range v.F.Calls {
		for j, a := range c.Args {
			if strings.TrimSpace(a) == p {
				if s, expr, pp := r.breadthParam(c.Name, v.File, j, depth+1); s != nil {
					return s, expr, pp
				}
			}
		}
	}
	return nil, "", ""
}

// checkHelperBreadth reports a helper call whose changed argument now
// makes the helper's wake-up wake fewer waiters.
func (r *checker) checkHelperBreadth(old, nw *wfunc) {
	if old == nil || nw == nil || old.F == nil || nw.F == nil || r.tree == nil {
		return
	}
	for _, n := range nw.F.Calls {
		if !nw.changed(n.Line) || r.p.isPrimitive(n.Name) {
			continue
		}
		o, i := r.argChanged(old, nw, n)
		if o == nil {
			continue
		}
		s, expr, p := r.breadthParam(n.Name, nw.File, i, 1)
		if s == nil {
			continue
		}
		ov, ok1 := evalNr(expr, p, strings.TrimSpace(o.Args[i]))
		nv, ok2 := evalNr(expr, p, strings.TrimSpace(n.Args[i]))
		if !ok1 || !ok2 || ov != "0" || nv == "0" {
			continue
		}
		f := report.Finding{
			Category: CategoryNarrowed,
			Severity: report.SeverityNote,
			File:     nw.File, Func: nw.Name, Line: n.Line, Key: s.Q,
			Message:  fmt.Sprintf("%s() now wakes at most %s exclusive waiter(s) of %s instead of all (%s -> %s)", n.Name, nv, s.Q, strings.TrimSpace(o.Args[i]), strings.TrimSpace(n.Args[i])),
			Evidence: []string{nw.evidence(n.Line)},
			Old:      []string{old.evidence(o.Line)},
		}
		var excl []*wsite
		for _, w := range append(r.waitersOf(s.Q), r.fileSites(s.Fn.File, s.Q, siteWait)...) {
			if isQueueWait(w) && w.Exclusive {
				excl = append(excl, w)
			}
		}
		f.Chain = append(f.Chain, step(s, "the helper's wake-up, count `"+normLine(expr)+"`: "+s.Text()))
		if len(excl) == 0 {
			f.Explanation = fmt.Sprintf("%s passes %s down to %s() at %s:%d, whose count is now %s instead of 0 (all). No exclusive waiter of %s was found; non-exclusive waiters are all woken either way.", n.Name, strings.TrimSpace(n.Args[i]), s.Fn.Name, s.Fn.File, s.Line(), nv, s.Q)
			r.add(f)
			continue
		}
		e := excl[0]
		f.Severity = report.SeverityRisk
		f.Chain = append([]report.Step{step(e, "waits exclusively: "+e.Text())}, f.Chain...)
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", e.Fn.Name+"() A and B", [][2]string{
			{"", "A and B wait exclusively for the entry"},
			{normLine(nw.text(n.Line)), ""},
			{"  wakes " + nv + " of them", "A woken; B keeps sleeping"},
			{"", "A finds nothing to pass on: B is never woken"},
		})...)
		f.Explanation = fmt.Sprintf("%s() hands %s to %s(), whose wake-up (%s:%d) now wakes %s exclusive waiter(s) instead of all of them. %s waits exclusively on %s; when this path changes the state for every waiter at once (the entry is removed or invalidated), only the first is woken, and unless it passes the wake-up on the others wait for good. Keep waking all of them here.",
			nw.Name, strings.TrimSpace(n.Args[i]), s.Fn.Name, s.Fn.File, s.Line(), nv, siteWhere(e), s.Q)
		r.add(f)
	}
}

// argChanged finds the old call that the new call n replaces (same callee,
// same change block or a changed line, same argument count) differing in
// exactly one argument, and that argument's index.
func (r *checker) argChanged(old, nw *wfunc, n cscan.Call) (*cscan.Call, int) {
	b := r.blockOf(nw, n.Line)
	for _, o := range old.F.Calls {
		if o.Name != n.Name || !old.changed(o.Line) || len(o.Args) != len(n.Args) {
			continue
		}
		if b != 0 && r.blockOf(old, o.Line) != b {
			continue
		}
		diff := -1
		for i := range o.Args {
			if normLine(o.Args[i]) != normLine(n.Args[i]) {
				if diff >= 0 {
					diff = -2
					break
				}
				diff = i
			}
		}
		if diff >= 0 {
			o := o
			return &o, diff
		}
	}
	return nil, 0
}

// fileSites returns the sites of one kind on queue q in the functions of
// file (a queue reached through a helper's result, "f()", is found by
// its callers' words only, so its file is scanned).
func (r *checker) fileSites(file, q string, kind siteKind) []*wsite {
	if r.tree == nil || !strings.HasSuffix(q, "()") {
		return nil
	}
	sf := r.pass.Index.File(file)
	if sf == nil {
		return nil
	}
	var out []*wsite
	for _, fn := range sf.Funcs {
		out = append(out, r.tree.view(fn).sitesOn(kind, q)...)
	}
	return out
}

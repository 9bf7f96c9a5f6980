package lockctx

import (
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
)

// siteRegs is what one registration call registers: functions named by
// its callback argument (funcs, with regs) and registrations whose
// callback is read from a member (members, with mregs).
type siteRegs struct {
	funcs   []string
	regs    []implicitReg
	members []string
	mregs   []memberReg
}

// treeRegs are the registrations of every registration call of the tree
// (without a patch), by call name, in the order of the tree index's
// Callers of that name.
type treeRegs map[string][]siteRegs

// findRegistrations finds the registration calls of the view (regs and
// memberRegs). A registration call in a file the patch leaves alone
// registers the same functions in every view (visitReg reads only the
// call and its own file): its registrations are found once per tree and
// model (treeRegistrations); only the calls in the files the patch changes
// are visited per view.
func (r *Resolver) findRegistrations() {
	r.regs = map[string][]implicitReg{}
	rows := r.callbackRows()
	names := registrationNames(rows)
	if r.ix == nil {
		isName := map[string]bool{}
		for _, n := range names {
			isName[n] = true
		}
		for _, fns := range r.patch {
			for _, fn := range fns {
				for _, c := range fn.Calls {
					if isName[c.Name] {
						r.addRegs(visitReg(nil, rows, fn, c))
					}
				}
			}
		}
		return
	}
	tree := r.treeRegistrations(rows, names)
	under := r.ix.Underlying()
	for _, n := range names {
		base, found := under.Callers(n), tree[n]
		k := 0
		for _, site := range r.ix.Callers(n) {
			if !r.ix.Overlaid(site.Func.File) {
				for k < len(base) && r.ix.Overlaid(base[k].Func.File) {
					k++
				}
				if k < len(base) && k < len(found) && base[k].Func == site.Func && base[k].Call.Line == site.Call.Line {
					r.addRegs(found[k])
					k++
					continue
				}
			}
			r.addRegs(visitReg(r.ix, rows, site.Func, site.Call))
		}
	}
}

// treeRegistrations returns the registrations of the tree's registration
// calls, found once per tree index and model.
func (r *Resolver) treeRegistrations(rows []Callback, names []string) treeRegs {
	under := r.ix.Underlying()
	return under.Memo("lockctx.treeregs."+r.m.id, func() any {
		out := treeRegs{}
		for _, n := range names {
			sites := under.Callers(n)
			found := make([]siteRegs, len(sites))
			for i, site := range sites {
				found[i] = visitReg(under, rows, site.Func, site.Call)
			}
			out[n] = found
		}
		return out
	}).(treeRegs)
}

// addRegs adds what one registration call registers to the view's
// registrations.
func (r *Resolver) addRegs(s siteRegs) {
	for i, fn := range s.funcs {
		r.regs[fn] = append(r.regs[fn], s.regs[i])
	}
	for i, m := range s.members {
		if r.memberRegs == nil {
			r.memberRegs = map[string][]memberReg{}
		}
		r.memberRegs[m] = append(r.memberRegs[m], s.mregs[i])
	}
}

// registrationNames returns the names of the registration calls of rows,
// sorted.
func registrationNames(rows []Callback) []string {
	seen := map[string]bool{}
	var out []string
	for _, row := range rows {
		for _, n := range row.Names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// visitReg returns what call c of caller registers by the rows (ix, the
// view, is read for the assignments of caller's file).
func visitReg(ix *index.Index, rows []Callback, caller *cscan.Func, c cscan.Call) siteRegs {
	var out siteRegs
	for i := range rows {
		row := &rows[i]
		if !hasString(row.Names, c.Name) || row.file != "" && row.file != caller.File {
			continue
		}
		arg := row.Arg
		if a, ok := row.ArgOf[c.Name]; ok {
			arg = a
		}
		if arg < 0 || arg >= len(c.Args) {
			continue
		}
		step := StepOf(caller, c.Line, "registered by "+CallText(c))
		if row.Via == "" {
			if fn := callbackName(c.Args[arg]); fn != "" {
				out.funcs = append(out.funcs, fn)
				out.regs = append(out.regs, implicitReg{row: row, step: step, file: caller.File})
			} else if mr, m, ok := memberRegOf(caller, row, step, c.Args[arg]); ok {
				out.members = append(out.members, m)
				out.mregs = append(out.mregs, mr)
			}
			continue
		}
		for _, fn := range viaMember(ix, caller, c.Args[arg], row.Via) {
			out.funcs = append(out.funcs, fn)
			out.regs = append(out.regs, implicitReg{row: row, step: step, file: caller.File})
		}
	}
	return out
}

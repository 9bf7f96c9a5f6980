package lockctx

import (
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/par"
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

// registrations returns the registration calls naming function name in
// the view, built once per resolver.
func (r *Resolver) registrations(name string) []implicitReg {
	if r.regs == nil {
		r.findRegistrations()
	}
	return r.regs[name]
}

// regSet is what findRegistrations finds in a view: the registrations by
// function name and, by member, those whose callback is read from a
// struct member.
type regSet struct {
	regs    map[string][]implicitReg
	members map[string][]memberReg
}

// add adds what one registration call registers.
func (set *regSet) add(s siteRegs) {
	for i, fn := range s.funcs {
		set.regs[fn] = append(set.regs[fn], s.regs[i])
	}
	for i, m := range s.members {
		if set.members == nil {
			set.members = map[string][]memberReg{}
		}
		set.members[m] = append(set.members[m], s.mregs[i])
	}
}

// findRegistrations finds the registration calls of the view (regs and
// memberRegs). A registration call in a file the patch leaves alone
// registers the same functions in every view (visitReg reads only the
// call and its own file): its registrations are found once per tree and
// model (treeRegistrations), and a view whose patch changes no file with
// a registration call shares the tree's (treeRegSet). Otherwise only the
// calls in the files the patch changes are visited per view.
func (r *Resolver) findRegistrations() {
	set := &regSet{regs: map[string][]implicitReg{}}
	defer func() { r.regs, r.memberRegs = set.regs, set.members }()
	rows := r.callbackRows()
	names := registrationNames(rows)
	isName := map[string]bool{}
	for _, n := range names {
		isName[n] = true
	}
	if r.ix == nil {
		for _, fns := range r.patch {
			for _, fn := range fns {
				for _, c := range fn.Calls {
					if isName[c.Name] {
						set.add(visitReg(nil, rows, fn, c))
					}
				}
			}
		}
		return
	}
	if !r.patchRegisters(rows, names, isName) {
		set = r.treeRegSet(rows, names)
		return
	}
	tree := r.treeRegistrations(rows, names)
	under := r.ix.Underlying()
	for _, n := range names {
		base, found := under.Callers(n), tree.sites[n]
		k := 0
		for _, site := range r.ix.Callers(n) {
			if !r.ix.Overlaid(site.Func.File) {
				for k < len(base) && r.ix.Overlaid(base[k].Func.File) {
					k++
				}
				if k < len(base) && k < len(found) && base[k].Func == site.Func && base[k].Call.Line == site.Call.Line {
					set.add(found[k])
					k++
					continue
				}
			}
			set.add(visitReg(r.ix, rows, site.Func, site.Call))
		}
	}
}

// patchRegisters reports whether the view's patch changes a file with a
// registration call (isName holds names), before or after: false for the
// tree's own view.
func (r *Resolver) patchRegisters(rows []Callback, names []string, isName map[string]bool) bool {
	tree := r.treeRegistrations(rows, names)
	for _, p := range r.ix.OverlaidPaths() {
		if tree.files[p] {
			return true
		}
		if f := r.ix.File(p); f != nil {
			for _, fn := range f.Funcs {
				for _, c := range fn.Calls {
					if isName[c.Name] {
						return true
					}
				}
			}
		}
	}
	return false
}

// treeRegSet returns the registrations of the tree's own view, found once
// per tree index and model.
func (r *Resolver) treeRegSet(rows []Callback, names []string) *regSet {
	return r.ix.Underlying().Memo("lockctx.registrations."+r.m.id, func() any {
		tree := r.treeRegistrations(rows, names)
		set := &regSet{regs: map[string][]implicitReg{}}
		for _, n := range names {
			for _, s := range tree.sites[n] {
				set.add(s)
			}
		}
		return set
	}).(*regSet)
}

// treeRegs are the registrations of every registration call of the tree
// (without a patch): by call name, in the order of the tree index's
// Callers of that name, and the files holding such calls.
type treeRegs struct {
	sites map[string][]siteRegs
	files map[string]bool
}

// treeRegistrations returns the registrations of the tree's registration
// calls, found once per tree index and model.
func (r *Resolver) treeRegistrations(rows []Callback, names []string) *treeRegs {
	under := r.ix.Underlying()
	return under.Memo("lockctx.treeregs."+r.m.id, func() any {
		// The names' call sites are read and visited on the machine's
		// cores (reads of the tree's index), then merged in the names'
		// order.
		found := make([][]siteRegs, len(names))
		sites := make([][]index.CallSite, len(names))
		par.Each(len(names), func(k int) {
			sites[k] = under.Callers(names[k])
			found[k] = make([]siteRegs, len(sites[k]))
			for i, site := range sites[k] {
				found[k][i] = visitReg(under, rows, site.Func, site.Call)
			}
		})
		out := &treeRegs{sites: map[string][]siteRegs{}, files: map[string]bool{}}
		for k, n := range names {
			for _, site := range sites[k] {
				out.files[site.Func.File] = true
			}
			out.sites[n] = found[k]
		}
		return out
	}).(*treeRegs)
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

package registrations

import (
	"slices"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/par"
	"github.com/autosel-bot/autosel-bot/report"
)

// siteRegs is what one registration call registers: functions named by
// its callback argument (funcs, with regs) and registrations whose
// callback is read from a member (members, with mregs); at is where the
// call sits.
type siteRegs struct {
	funcs   []string
	regs    []Reg
	members []string
	mregs   []memberReg
	at      siteKey
}

// Of returns the registration calls naming function name in the view,
// all found on the first call.
func (t *Table) Of(name string) []Reg {
	if t.set == nil {
		t.findRegistrations()
	}
	return t.set.of(name)
}

// findRegistrations finds the registration calls of the view (t.set). A
// registration call in a file the patch leaves alone registers the same
// functions in every view (visitReg reads only the call and its own
// file): its registrations are found once per tree and model (tree),
// and every view shares them. A view whose patch changes a
// file with a registration call adds those of the files the patch
// rescans (overRegSet), merged in on demand in the order the view's
// call sites give.
func (t *Table) findRegistrations() {
	rows := t.Rows()
	isName := map[string]bool{}
	for _, n := range registrationNames(rows) {
		isName[n] = true
	}
	if t.ix == nil {
		set := newRegSet()
		for _, fns := range t.patch {
			for _, fn := range fns {
				for _, c := range fn.Calls {
					if isName[c.Name] {
						set.add(visitReg(nil, rows, fn, c))
					}
				}
			}
		}
		t.set = newRegView(nil, set, nil)
		return
	}
	var over *regSet
	if len(t.patchRows) > 0 || t.patchRegisters(isName) {
		over = t.overRegSet(rows, isName)
	}
	t.set = newRegView(t.ix, t.tree().set, over)
}

// overRegSet returns the registrations of the calls in the files the
// view's patch rescans, in the order of the view's call sites (siteKey).
// It reads those files' calls directly: the view's Callers of every
// registration name would decode each name's call sites in the whole
// tree, the visit the stored registrations spare.
func (t *Table) overRegSet(rows []Callback, isName map[string]bool) *regSet {
	var sites []index.CallSite
	for _, p := range t.ix.OverlaidPaths() {
		f := t.ix.File(p)
		if f == nil {
			continue // deleted by the patch
		}
		for _, fn := range f.Funcs {
			for _, c := range fn.Calls {
				if isName[c.Name] {
					sites = append(sites, index.CallSite{Func: fn, Call: c})
				}
			}
		}
	}
	sites = append(sites, t.patchWrapperSites()...)
	sort.SliceStable(sites, func(i, j int) bool { return keyOf(sites[i]).less(keyOf(sites[j])) })
	set := newRegSet()
	for _, site := range sites {
		r := visitReg(t.ix, rows, site.Func, site.Call)
		r.at = keyOf(site)
		set.add(r)
	}
	return set
}

// patchRegisters reports whether the view's patch changes a file with a
// registration call (a name isName holds), before or after: false for the
// tree's own view.
func (t *Table) patchRegisters(isName map[string]bool) bool {
	paths := t.ix.OverlaidPaths()
	if len(paths) == 0 {
		return false
	}
	tree := t.tree()
	for _, p := range paths {
		if tree.files[p] {
			return true
		}
		if f := t.ix.File(p); f != nil {
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

// treeSet is the registrations of the tree's own view and the files
// holding a registration call.
type treeSet struct {
	set   *regSet
	files map[string]bool
}

// tree returns the registrations of the tree's own view (by the tree's
// rows), once per tree index and model: read from what Prepare stored
// when it fits the rows, else found by visiting every registration call
// of the tree.
func (t *Table) tree() *treeSet {
	under := t.ix.Underlying()
	return under.Memo("lockctx.registrations."+t.id, func() any {
		rows := t.treeRows()
		if t.storedRegs != nil {
			if s, ok := t.storedRegs(); ok {
				if tree, ok := s.load(under, rows); ok {
					return tree
				}
			}
		}
		return t.visitTree(rows, registrationNames(rows))
	}).(*treeSet)
}

// visitTree visits every registration call of the tree (without a
// patch) and returns the tree's registrations, in the order of the tree
// index's Callers of each name, and the files holding such calls. The
// names' call sites are read and visited on the machine's cores (reads of
// the tree's index), then merged in the names' order.
func (t *Table) visitTree(rows []Callback, names []string) *treeSet {
	under := t.ix.Underlying()
	found := make([][]siteRegs, len(names))
	sites := make([][]index.CallSite, len(names))
	par.Each(len(names), func(k int) {
		sites[k] = under.Callers(names[k])
		found[k] = make([]siteRegs, len(sites[k]))
		for i, site := range sites[k] {
			found[k][i] = visitReg(under, rows, site.Func, site.Call)
			found[k][i].at = keyOf(site)
		}
	})
	out := &treeSet{set: newRegSet(), files: map[string]bool{}}
	for k := range names {
		for i, site := range sites[k] {
			out.files[site.Func.File] = true
			out.set.add(found[k][i])
		}
	}
	return out
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
		if !slices.Contains(row.Names, c.Name) || row.file != "" && row.file != caller.File || !row.ArgHas.holds(c.Args) {
			continue
		}
		arg := row.Arg
		if a, ok := row.ArgOf[c.Name]; ok {
			arg = a
		}
		if arg < 0 || arg >= len(c.Args) {
			continue
		}
		step := report.Step{Func: caller.Name, File: caller.File, Line: c.Line,
			What: "registered by " + c.Name + "(" + strings.Join(c.Args, ", ") + ")"}
		if row.Array {
			for _, fn := range arrayCallbacks(ix, caller, c.Args[arg]) {
				out.funcs = append(out.funcs, fn)
				out.regs = append(out.regs, Reg{Row: row, Step: step, File: caller.File})
			}
			continue
		}
		if row.Via == "" {
			if fns := CallbackNames(c.Args[arg]); len(fns) > 0 {
				for _, fn := range fns {
					if wrapperParam(rows, caller, fn) {
						continue // a wrapper's parameter (wrappers.go), no function
					}
					out.funcs = append(out.funcs, fn)
					out.regs = append(out.regs, Reg{Row: row, Step: step, File: caller.File})
				}
			} else if mr, m, ok := memberRegOf(caller, row, step, c.Args[arg]); ok {
				out.members = append(out.members, m)
				out.mregs = append(out.mregs, mr)
			}
			continue
		}
		for _, fn := range viaMember(ix, caller, c.Args[arg], row.Via) {
			out.funcs = append(out.funcs, fn)
			out.regs = append(out.regs, Reg{Row: row, Step: step, File: caller.File})
		}
	}
	return out
}

// wrapperParam reports whether name is the parameter a wrapper row of
// rows says caller passes on to a registration (its "handler"), which
// hides any function of that name in the tree.
func wrapperParam(rows []Callback, caller *cscan.Func, name string) bool {
	for i := range rows {
		if rows[i].Param == name && len(rows[i].Names) == 1 && rows[i].Names[0] == caller.Name &&
			(rows[i].file == "" || rows[i].file == caller.File) {
			return true
		}
	}
	return false
}

package registrations

import (
	"maps"
	"slices"
	"sort"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// StoredRegs is the content of the tree registrations file Prepare stores
// beside the index (gob, by exported fields): every registration the
// tree's registration calls make (those of one function or member in the
// order a view lists them), and the files holding such calls. Reading it saves a check the visit of every
// registration call of the tree (the decoding of each calling function),
// which is most of a small patch's one-shot check.
type StoredRegs struct {
	Generation string
	// NRows is how many callback rows the registrations' Row indexes
	// refer to (the rows stored beside them).
	NRows int
	Files []string
	Regs  []StoredReg
}

// StoredReg is one registration of StoredRegs: of function Func, or, when
// Member is set, of what member Member of Base holds, read in the
// function Caller of the index. Row indexes the tree's callback rows;
// Name is the registration call's name and Start the first line of the
// function making it (with File and Step.Line, its siteKey).
type StoredReg struct {
	Func, Member string
	Row          int
	Step         report.Step
	File         string
	Caller       index.Ref
	Base         string
	Name         string
	Start        int
}

// key returns where r's call sits.
func (r *StoredReg) key() siteKey {
	return siteKey{name: r.Name, file: r.File, line: r.Step.Line, start: r.Start}
}

// StoreTree returns the stored form of the registrations of the tree
// under t's view (without a generation: the store sets it); ok is false
// without an index or when a registration's row is not one of the tree's
// rows.
func (t *Table) StoreTree() (s StoredRegs, ok bool) {
	if t.ix == nil {
		return StoredRegs{}, false
	}
	rows := t.treeRows()
	rowOf := make(map[*Callback]int, len(rows))
	for i := range rows {
		rowOf[&rows[i]] = i
	}
	tree := t.tree()
	s = StoredRegs{NRows: len(rows)}
	for f := range tree.files {
		s.Files = append(s.Files, f)
	}
	sort.Strings(s.Files)
	add := func(fn, member string, g Reg, caller index.Ref, base string, at siteKey) bool {
		row, ok := rowOf[g.Row]
		s.Regs = append(s.Regs, StoredReg{Func: fn, Member: member, Row: row, Step: g.Step, File: g.File,
			Caller: caller, Base: base, Name: at.name, Start: at.start})
		return ok && at.file == g.File && at.line == g.Step.Line
	}
	for _, fn := range slices.Sorted(maps.Keys(tree.set.regs.items)) {
		for i, g := range tree.set.regs.items[fn] {
			if !add(fn, "", g, 0, "", tree.set.regs.at[fn][i]) {
				return StoredRegs{}, false
			}
		}
	}
	for _, m := range slices.Sorted(maps.Keys(tree.set.members.items)) {
		for i, g := range tree.set.members.items[m] {
			ref, ok := t.ix.RefOf(g.caller)
			if !ok || !add("", m, g.Reg, ref, g.base, tree.set.members.at[m][i]) {
				return StoredRegs{}, false
			}
		}
	}
	return s, true
}

// load rebuilds the tree's registrations from s for rows (the tree's, as
// many as were stored) over the index ix; ok is false when s does not fit
// them.
func (s *StoredRegs) load(ix *index.Index, rows []Callback) (*treeSet, bool) {
	if s.NRows != len(rows) {
		return nil, false
	}
	out := &treeSet{set: newRegSet(), files: make(map[string]bool, len(s.Files))}
	for _, f := range s.Files {
		out.files[f] = true
	}
	for i := range s.Regs {
		r := &s.Regs[i]
		if r.Row < 0 || r.Row >= len(rows) {
			return nil, false
		}
		g := Reg{Row: &rows[r.Row], Step: r.Step, File: r.File}
		if r.Member == "" {
			out.set.regs.add(r.Func, g, r.key())
			continue
		}
		caller := ix.FuncOf(r.Caller)
		if caller == nil {
			return nil, false
		}
		out.set.members.add(r.Member, memberReg{Reg: g, caller: caller, base: r.Base}, r.key())
	}
	return out, true
}

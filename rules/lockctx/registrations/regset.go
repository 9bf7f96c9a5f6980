package registrations

import "github.com/autosel-bot/autosel-bot/index"

// siteKey is where a registration call sits: the call's name, then the
// call site's place in the order of index.CallSiteLess. A view lists
// registrations in this order, by name first (the registration names
// sorted, as registrationNames gives them, whichever table's rows named
// them), then by call site as the view's Callers of each name are.
type siteKey struct {
	name        string
	file        string
	line, start int
}

// keyOf returns the key of site, a registration call.
func keyOf(site index.CallSite) siteKey {
	return siteKey{name: site.Call.Name, file: site.Func.File, line: site.Call.Line, start: site.Func.Start}
}

// less orders keys as the view's registrations are listed.
func (a siteKey) less(b siteKey) bool {
	switch {
	case a.name != b.name:
		return a.name < b.name
	case a.file != b.file:
		return a.file < b.file
	case a.line != b.line:
		return a.line < b.line
	}
	return a.start < b.start
}

// regSet is what findRegistrations finds in the calls it visits: the
// registrations by function name and, by member, those whose callback is
// read from a struct member; regAt and memberAt hold where the call of
// each sits, in step with them.
type regSet struct {
	regs     map[string][]Reg
	regAt    map[string][]siteKey
	members  map[string][]memberReg
	memberAt map[string][]siteKey
}

func newRegSet() *regSet {
	return &regSet{regs: map[string][]Reg{}, regAt: map[string][]siteKey{},
		members: map[string][]memberReg{}, memberAt: map[string][]siteKey{}}
}

// add adds what one registration call registers.
func (set *regSet) add(s siteRegs) {
	for i, fn := range s.funcs {
		set.addReg(fn, s.regs[i], s.at)
	}
	for i, m := range s.members {
		set.addMember(m, s.mregs[i], s.at)
	}
}

// addReg adds a registration of function fn by the call at at.
func (set *regSet) addReg(fn string, g Reg, at siteKey) {
	set.regs[fn] = append(set.regs[fn], g)
	set.regAt[fn] = append(set.regAt[fn], at)
}

// addMember adds a registration of what member m holds by the call at at.
func (set *regSet) addMember(m string, g memberReg, at siteKey) {
	set.members[m] = append(set.members[m], g)
	set.memberAt[m] = append(set.memberAt[m], at)
}

// regView is a view's registrations: the tree's (shared by every view
// over it) and, when the view's patch changes a file with a registration
// call, those of the files it rescans (over), which replace the tree's of
// the same files. The answers for a patched view are merged on demand and
// kept (regs, members).
type regView struct {
	tree, over *regSet
	ix         *index.Index
	regs       map[string][]Reg
	members    map[string][]memberReg
}

// of returns the registrations of function name, in the view's order.
func (v *regView) of(name string) []Reg {
	if v.over == nil {
		return v.tree.regs[name]
	}
	if r, ok := v.regs[name]; ok {
		return r
	}
	r := mergeView(v.ix, v.tree.regs[name], v.tree.regAt[name], v.over.regs[name], v.over.regAt[name])
	v.regs[name] = r
	return r
}

// membersOf returns the registrations whose callback is read from member
// m, in the view's order.
func (v *regView) membersOf(m string) []memberReg {
	if v.over == nil {
		return v.tree.members[m]
	}
	if r, ok := v.members[m]; ok {
		return r
	}
	r := mergeView(v.ix, v.tree.members[m], v.tree.memberAt[m], v.over.members[m], v.over.memberAt[m])
	v.members[m] = r
	return r
}

// mergeView merges the tree's registrations (tree, at treeAt) without
// those in files the view ix rescans with the view's own of those files
// (over, at overAt), both in key order, into key order.
func mergeView[T any](ix *index.Index, tree []T, treeAt []siteKey, over []T, overAt []siteKey) []T {
	var out []T
	i, j := 0, 0
	for i < len(tree) || j < len(over) {
		if i < len(tree) && ix.Overlaid(treeAt[i].file) {
			i++
			continue
		}
		if j < len(over) && (i == len(tree) || overAt[j].less(treeAt[i])) {
			out = append(out, over[j])
			j++
			continue
		}
		out = append(out, tree[i])
		i++
	}
	return out
}

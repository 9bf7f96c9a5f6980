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

// keyed holds registrations of one kind (of a function, or of what a
// member holds) by that function's or member's name, and where the call
// of each sits, in step with them.
type keyed[T any] struct {
	items map[string][]T
	at    map[string][]siteKey
}

func newKeyed[T any]() keyed[T] {
	return keyed[T]{items: map[string][]T{}, at: map[string][]siteKey{}}
}

// add adds v, registered under name by the call at at.
func (k *keyed[T]) add(name string, v T, at siteKey) {
	k.items[name] = append(k.items[name], v)
	k.at[name] = append(k.at[name], at)
}

// regSet is what findRegistrations finds in the calls it visits: the
// registrations by function name and, by member, those whose callback is
// read from a struct member.
type regSet struct {
	regs    keyed[Reg]
	members keyed[memberReg]
}

func newRegSet() *regSet {
	return &regSet{regs: newKeyed[Reg](), members: newKeyed[memberReg]()}
}

// add adds what one registration call registers.
func (set *regSet) add(s siteRegs) {
	for i, fn := range s.funcs {
		set.regs.add(fn, s.regs[i], s.at)
	}
	for i, m := range s.members {
		set.members.add(m, s.mregs[i], s.at)
	}
}

// regView is a view's registrations: the tree's (shared by every view
// over it) and, when the view's patch changes a file with a registration
// call, those of the files it rescans (over), which replace the tree's of
// the same files.
type regView struct {
	regs    layer[Reg]
	members layer[memberReg]
}

// newRegView returns the registrations of the view ix: tree's, and over's
// for the files ix rescans (over nil: the view shares tree's).
func newRegView(ix *index.Index, tree, over *regSet) *regView {
	v := &regView{regs: layer[Reg]{tree: &tree.regs}, members: layer[memberReg]{tree: &tree.members}}
	if over != nil {
		v.regs.ix, v.regs.over, v.regs.merged = ix, &over.regs, map[string][]Reg{}
		v.members.ix, v.members.over, v.members.merged = ix, &over.members, map[string][]memberReg{}
	}
	return v
}

// of returns the registrations of function name, in the view's order.
func (v *regView) of(name string) []Reg { return v.regs.get(name) }

// membersOf returns the registrations whose callback is read from member
// m, in the view's order.
func (v *regView) membersOf(m string) []memberReg { return v.members.get(m) }

// layer is one kind of a view's registrations: the tree's and, for a
// patched view ix, those of the files it rescans (over), merged per name
// on demand and kept (merged).
type layer[T any] struct {
	ix         *index.Index
	tree, over *keyed[T]
	merged     map[string][]T
}

// get returns the registrations under name, in the view's order.
func (l *layer[T]) get(name string) []T {
	if l.over == nil {
		return l.tree.items[name]
	}
	if r, ok := l.merged[name]; ok {
		return r
	}
	r := mergeView(l.ix, l.tree.items[name], l.tree.at[name], l.over.items[name], l.over.at[name])
	l.merged[name] = r
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

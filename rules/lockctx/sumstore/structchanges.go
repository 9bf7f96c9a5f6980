package sumstore

import (
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Struct definitions as a dependency of stored summaries. A call through
// a member chain (h->ops->run()) is resolved by typing the chain through
// the struct definitions visible from the caller's file; a patch that
// changes one of those definitions (a member's struct type, a definition
// added, removed or made visible by an #include) changes how calls
// resolve in functions it does not touch. Prepare notes, in each record,
// beside the members it resolved calls through, every struct tag whose
// definition its summary looked up (typing.StructKey) and every member whose
// type it read (typing.MemberKey). Under a patch, a rescanned file that
// defines a tag where it did not, or no longer, changes every look-up of
// the tag; one whose definition types a member differently changes the
// look-ups of that member: their functions seed the climb like those of
// a changed member. Adding an int, or a struct-typed member nothing read
// before, changes nothing.

// changedStructs notes the keys of the struct definitions the patch
// changes in rescanned file p (text before and after the patch; typ is
// the view's typing): the tags
// it defines where it did not, or no longer, and those defined in a file
// whose #include it adds or removes, when it is a header (that file
// itself; what it includes in turn is not followed); and the members a
// definition types differently (the struct-typed members, which typing
// reads).
func (v *View) changedStructs(typ *typing.Typer, p string, before, after []byte) {
	s := v.sources
	root := v.ix.Underlying()
	oldDefs, newDefs := ctype.ParseStructs(string(before)), ctype.ParseStructs(string(after))
	for tag, ms := range oldDefs {
		nms, ok := newDefs[tag]
		if !ok {
			s.structs[typing.StructKey(tag)] = true
			continue
		}
		for m, t := range ms {
			if nms[m] != t {
				s.structs[typing.MemberKey(tag, m)] = true
			}
		}
		for m := range nms {
			if _, ok := ms[m]; !ok {
				s.structs[typing.MemberKey(tag, m)] = true
			}
		}
	}
	for tag := range newDefs {
		if _, ok := oldDefs[tag]; !ok {
			s.structs[typing.StructKey(tag)] = true
		}
	}
	if strings.HasSuffix(p, ".c") {
		// What a .c file includes types its own functions, sources
		// already: only a header's includes reach further.
		return
	}
	od, on := ctype.IncludeDirectives(string(before))
	nd, nn := ctype.IncludeDirectives(string(after))
	oldInc, newInc := ctype.ResolveIncludes(p, od, on, true), ctype.ResolveIncludes(p, nd, nn, true)
	for _, inc := range symmetricDiff(oldInc, newInc) {
		// The tags the header defines in the view (stored or parsed once
		// per tree), and in the tree too when the patch changes it.
		for tag := range typ.FileStructs(inc) {
			s.structs[typing.StructKey(tag)] = true
		}
		if !v.ix.Overlaid(inc) {
			continue
		}
		if b, err := root.ReadFile(inc); err == nil {
			for tag := range ctype.ParseStructs(string(b)) {
				s.structs[typing.StructKey(tag)] = true
			}
		}
	}
}

// symmetricDiff returns what is in one of a and b but not in both, sorted.
func symmetricDiff(a, b []string) []string {
	in := map[string]int{}
	for _, x := range a {
		in[x] |= 1
	}
	for _, x := range b {
		in[x] |= 2
	}
	var out []string
	for x, w := range in {
		if w != 3 {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

package sumstore

import (
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Which stored summaries hold under a patch (prepare.go stores them). A
// stored summary was computed without the patch. It can change only when
// something it was computed from did: a function in a file the patch
// rescans or with the name of one of the patch's functions (the sources),
// or the functions assigned to a member it resolved a call through. The
// patch's dirty set is the tree functions whose summary in the view does
// differ from the stored one: settle climbs the reverse deps from the
// sources and the functions whose members changed, summarising again
// only as far as summaries actually change. Every other tree function's
// stored summary is used.
//
// The resolver's own taint tracking (lockctx's sharedsummaries.go) makes
// the same dependency test for the summaries it computes; the climb adds
// that a change which leaves a function's summary as it was stops there.
//
// A function whose file's hunks did not apply to the tree is its hunks'
// post-image in the view; when the hunks change nothing a summary holds
// (lockctx's findNeutral), calls reach the tree's version and it is no
// source.

// patchSources are what the view's patch changes, as the store sees it.
type patchSources struct {
	// files are the numbers of the rescanned files, funcs the tree
	// functions named like a patch function.
	files map[int]bool
	funcs map[index.Ref]bool
	// members are the member keys whose assignments the patch changes
	// (changedKeys).
	tagged, untyped, anyMember map[string]bool
	// structs are the keys of the struct definitions the patch changes
	// (typing.StructKey, typing.MemberKey; changedStructs).
	structs map[string]bool
	// cut are the changed functions whose new versions have their stored
	// summary: a change there stops at them.
	cut map[index.Ref]bool
	// moved maps the old lines of assignments the patch only moved to
	// their new ones, by file.
	moved map[string]map[int]int
	// dirty are the functions whose stored summary may not hold; all is
	// set when that cannot be known (the member index is unreadable).
	dirty map[index.Ref]bool
	all   bool
	// closed are dirty with everything above them (markDirty), and dirty
	// as well (isDirty).
	closed refSet
	// lines renumbers, per rescanned file whose change lies inside
	// functions, the old lines outside the changed functions; paired maps
	// the old refs of such a file's unchanged functions to their new
	// versions, pairedRef back (unchangedfuncs.go).
	lines     map[string]map[int]int
	paired    map[index.Ref]*cscan.Func
	pairedRef map[*cscan.Func]index.Ref
	// climbed counts the summaries settle computed (statistics).
	climbed int
}

// isDirty reports whether ref's stored summary may not hold in the view.
func (s *patchSources) isDirty(ref index.Ref) bool { return s.dirty[ref] || s.closed.has(ref) }

// renumbers reports whether stored summaries need renumbering in the view.
func (s *patchSources) renumbers() bool { return len(s.moved) > 0 || len(s.lines) > 0 }

// Settle finds what the view's patch changes and the dirty set, which
// stored summaries then no longer hold (Stored): e summarises the
// changed functions' new versions and climbs (settle); neutral are the
// names of the patch's post-images whose calls reach the tree's version
// (lockctx's findNeutral), typ the view's struct typing.
func (v *View) Settle(e Engine, neutral map[string]bool, typ *typing.Typer) {
	s := &patchSources{files: map[int]bool{}, funcs: map[index.Ref]bool{}, tagged: map[string]bool{},
		untyped: map[string]bool{}, anyMember: map[string]bool{}, structs: map[string]bool{}, cut: map[index.Ref]bool{},
		moved: map[string]map[int]int{}, dirty: map[index.Ref]bool{},
		lines: map[string]map[int]int{}, paired: map[index.Ref]*cscan.Func{}, pairedRef: map[*cscan.Func]index.Ref{}}
	v.sources = s
	root := v.ix.Underlying()
	for _, p := range append(v.ix.OverlaidPaths(), v.alsoChanged...) {
		if i, ok := v.ix.FileNum(p); ok {
			s.files[i] = true
		}
	}
	for name := range v.patch {
		if neutral[name] {
			continue // reached as the tree's version: no source
		}
		for _, fn := range root.Funcs(name) {
			if ref, ok := root.RefOf(fn); ok {
				s.funcs[ref] = true
			}
		}
	}
	v.changedMembers()
	for _, p := range v.ix.OverlaidPaths() {
		// A file the patch adds is in neither (only files the patch
		// changes can include it; its functions are sources).
		before, err := root.ReadFile(p)
		if err != nil {
			continue
		}
		after, _ := v.ix.ReadFile(p) // nil for a deleted file
		v.changedStructs(typ, p, before, after)
		if i, ok := v.ix.FileNum(p); ok && after != nil {
			v.pairFile(p, i, before, after)
		}
	}
	// The seeds: every source (the rescanned files' functions but those
	// paired with an unchanged new version), and the functions whose
	// members changed.
	var seeds []index.Ref
	for i := range s.files {
		for _, ref := range root.FileRefs(i) {
			if s.paired[ref] == nil {
				seeds = append(seeds, ref)
			}
		}
	}
	for ref := range s.funcs {
		seeds = append(seeds, ref)
	}
	for _, key := range s.changedKeys() {
		refs, ok := v.src.memberRefs(key)
		if !ok {
			s.all = true
			return
		}
		seeds = append(seeds, refs...)
	}
	sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
	n := 0
	for i, x := range seeds {
		if i == 0 || x != seeds[i-1] {
			seeds[n] = x
			n++
		}
	}
	v.settle(e, seeds[:n])
}

// changedKeys returns the member keys the patch changes that a record may
// have noted: "struct.member", "*.member" for a member of any struct, bare
// members, and the struct definitions it changes (typing.StructKey).
func (s *patchSources) changedKeys() []string {
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for k := range s.tagged {
		add(k)
	}
	for m := range s.untyped {
		add("*." + m) // every struct's member m (memberRefs)
	}
	for m := range s.anyMember {
		add(m)
	}
	for k := range s.structs {
		add(k)
	}
	sort.Strings(out)
	return out
}

// changedMembers finds the member keys whose assignments the patch
// changes: the rescanned files assign the member other functions. An
// assignment that only moved changes no member; chains quoting its place
// are renumbered (moved).
func (v *View) changedMembers() {
	s := v.sources
	before, after := v.ix.ChangedAssigns()
	type key struct{ file, strct, member, fn, base, vr string }
	lines := map[key][2][]int{}
	var keys []key
	for side, as := range [][]index.Assign{before, after} {
		for _, a := range as {
			k := key{a.File, a.Struct, a.Member, a.Func, a.Base, a.Var}
			l, ok := lines[k]
			if !ok {
				keys = append(keys, k)
			}
			l[side] = append(l[side], a.Line)
			lines[k] = l
		}
	}
	for _, k := range keys {
		l := lines[k]
		if len(l[0]) != len(l[1]) {
			s.anyMember[k.member] = true
			if k.strct == "" {
				s.untyped[k.member] = true
			} else {
				s.tagged[k.strct+"."+k.member] = true
			}
			continue
		}
		for i := range l[0] {
			if l[0][i] != l[1][i] {
				if s.moved[k.file] == nil {
					s.moved[k.file] = map[int]int{}
				}
				s.moved[k.file][l[0][i]] = l[1][i]
			}
		}
	}
}

// maxSettle bounds the summaries settle computes before it gives up
// cutting and dirties everything above what changed.
const maxSettle = 1500

// markDirty adds ref and everything computed from it to the dirty set.
func (v *View) markDirty(ref index.Ref) {
	s := v.sources
	if !s.closed.add(ref) {
		return
	}
	queue := []index.Ref{ref}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		// Read without caching: the closure may be much of the tree.
		v.src.eachRdep(x, func(p index.Ref) {
			if s.closed.add(p) {
				queue = append(queue, p)
			}
		})
	}
}

// storedEnc returns the encoding of ref's stored summary as the view sees
// it (moved assignments renumbered).
func (v *View) storedEnc(ref index.Ref) []byte {
	rec, ok := v.record(ref)
	if !ok || rec.rest == nil {
		return nil
	}
	if !v.sources.renumbers() {
		return rec.rest
	}
	s, ok := summary.Decode(rec.rest)
	if !ok {
		return nil
	}
	v.sources.renumber(s)
	return summary.Append(nil, s)
}

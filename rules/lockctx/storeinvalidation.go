package lockctx

import (
	"sort"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// Which stored summaries hold under a patch (summarystore.go). A stored
// summary was computed without the patch. It can change only when
// something it was computed from did: a function in a file the patch
// rescans or with the name of one of the patch's functions (the sources),
// or the functions assigned to a member it resolved a call through. The
// patch's dirty set is the tree functions whose summary in the view does
// differ from the stored one: settle climbs the reverse deps from the
// sources and the functions whose members changed, summarising again
// only as far as summaries actually change. Every other tree function's
// stored summary is used.
//
// The resolver's own taint tracking (sharedsummaries.go) makes the same dependency
// test for the summaries it computes; the climb adds that a change which
// leaves a function's summary as it was stops there.
//
// A function whose file's hunks did not apply to the tree is its hunks'
// post-image in the view; when the hunks change nothing a summary holds
// (findNeutral), calls reach the tree's version and it is no source.

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

// stored returns the stored summary of fn when there is one and the patch
// changes nothing it was computed from.
func (r *Resolver) stored(fn *cscan.Func) *Summary {
	if r.store == nil {
		return nil
	}
	ref, ok := r.storeRef(fn)
	if !ok {
		return nil
	}
	if r.build == nil && (r.sources.all || r.sources.isDirty(ref)) {
		return nil
	}
	rec, ok := r.record(ref)
	if !ok || rec.rest == nil {
		return nil
	}
	s, ok := decodeSummary(rec.rest)
	if !ok {
		return nil
	}
	if r.sources != nil && r.sources.renumbers() {
		r.sources.renumber(s)
	}
	return s
}

// record returns the decoded stored record of ref (cached).
func (r *Resolver) record(ref index.Ref) (*record, bool) {
	if rec, ok := r.records[ref]; ok {
		return rec, rec != nil
	}
	side, _ := r.store.(*sideSource)
	if side != nil {
		if rec, ok := side.decoded(ref); ok {
			r.records[ref] = rec
			return rec, rec != nil
		}
	}
	rec, ok := decodeRecord(r.store.get(ref))
	var p *record
	if ok {
		p = &rec
	}
	r.records[ref] = p
	if side != nil {
		side.keep(ref, p)
	}
	return p, ok
}

// initSources finds what the view's patch changes and the dirty set.
func (r *Resolver) initSources() {
	s := &patchSources{files: map[int]bool{}, funcs: map[index.Ref]bool{}, tagged: map[string]bool{},
		untyped: map[string]bool{}, anyMember: map[string]bool{}, structs: map[string]bool{}, cut: map[index.Ref]bool{},
		moved: map[string]map[int]int{}, dirty: map[index.Ref]bool{},
		lines: map[string]map[int]int{}, paired: map[index.Ref]*cscan.Func{}, pairedRef: map[*cscan.Func]index.Ref{}}
	r.sources = s
	if r.ix == nil {
		return
	}
	r.findNeutral()
	root := r.ix.Underlying()
	for _, p := range r.ix.OverlaidPaths() {
		if i, ok := r.ix.FileNum(p); ok {
			s.files[i] = true
		}
	}
	for name := range r.patch {
		if r.neutral[name] {
			continue // reached as the tree's version: no source
		}
		for _, fn := range root.Funcs(name) {
			if ref, ok := root.RefOf(fn); ok {
				s.funcs[ref] = true
			}
		}
	}
	r.changedMembers()
	for _, p := range r.ix.OverlaidPaths() {
		// A file the patch adds is in neither (only files the patch
		// changes can include it; its functions are sources).
		before, err := root.ReadFile(p)
		if err != nil {
			continue
		}
		after, _ := r.ix.ReadFile(p) // nil for a deleted file
		r.changedStructs(p, before, after)
		if i, ok := r.ix.FileNum(p); ok && after != nil {
			r.pairFile(p, i, before, after)
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
		refs, ok := r.store.memberRefs(key)
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
	r.settle(seeds[:n])
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
func (r *Resolver) changedMembers() {
	s := r.sources
	before, after := r.ix.ChangedAssigns()
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
func (r *Resolver) markDirty(ref index.Ref) {
	s := r.sources
	if !s.closed.add(ref) {
		return
	}
	queue := []index.Ref{ref}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		// Read without caching: the closure may be much of the tree.
		r.store.eachRdep(x, func(p index.Ref) {
			if s.closed.add(p) {
				queue = append(queue, p)
			}
		})
	}
}

// storedEnc returns the encoding of ref's stored summary as the view sees
// it (moved assignments renumbered).
func (r *Resolver) storedEnc(ref index.Ref) []byte {
	rec, ok := r.record(ref)
	if !ok || rec.rest == nil {
		return nil
	}
	if !r.sources.renumbers() {
		return rec.rest
	}
	s, ok := decodeSummary(rec.rest)
	if !ok {
		return nil
	}
	r.sources.renumber(s)
	return appendSummary(nil, s)
}

// assignedAt is how a chain step quotes where a function was assigned to
// a member (ViaStep).
const assignedAt = "(assigned at "

// renumber rewrites the places quoted in s that the patch moved: lines
// of rescanned files outside the functions it changed (lines), and the
// assignment places quoted in chain steps (moved).
func (src *patchSources) renumber(s *Summary) {
	moved := src.moved
	line := func(file string, l int) int {
		if nl, ok := src.lines[file][l]; ok {
			return nl
		}
		return l
	}
	steps := func(ss []report.Step) {
		for i := range ss {
			ss[i].Line = line(ss[i].File, ss[i].Line)
			if len(moved) > 0 {
				ss[i].What = renumberWhat(ss[i].What, moved)
			}
		}
	}
	effects := func(es []Effect) {
		for i := range es {
			steps(es[i].Steps)
		}
	}
	reach := func(r *Reach) {
		steps(r.Steps)
		effects(r.Drops)
		effects(r.Retakes)
	}
	if s.Reach != nil {
		reach(s.Reach)
	}
	effects(s.Acquires)
	effects(s.CondAcquires)
	effects(s.Drops)
	for i := range s.ArgReaches {
		a := &s.ArgReaches[i]
		reach(&a.Reach)
		// The primitive call is the chain's last step's.
		if n := len(a.Steps); n > 0 && len(src.lines[a.Steps[n-1].File]) > 0 {
			file := a.Steps[n-1].File
			a.Call.Line = line(file, a.Call.Line)
			if len(a.Call.Guards) > 0 {
				gs := append([]cscan.Guard(nil), a.Call.Guards...)
				for j := range gs {
					gs[j].Line = line(file, gs[j].Line)
				}
				a.Call.Guards = gs
			}
		}
	}
}

// renumberWhat renumbers "(assigned at FILE:LINE" in what when moved.
func renumberWhat(what string, moved map[string]map[int]int) string {
	i := strings.Index(what, assignedAt)
	if i < 0 {
		return what
	}
	rest := what[i+len(assignedAt):]
	colon := strings.LastIndexByte(rest, ':')
	end := colon + 1
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if colon < 0 || end == colon+1 {
		return what
	}
	line, err := strconv.Atoi(rest[colon+1 : end])
	if err != nil {
		return what
	}
	nl, ok := moved[rest[:colon]][line]
	if !ok {
		return what
	}
	return what[:i+len(assignedAt)] + rest[:colon+1] + strconv.Itoa(nl) + rest[end:]
}

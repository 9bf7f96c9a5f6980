package lockctx

import (
	"sort"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// Which stored summaries hold under a patch (sumstore.go). A stored
// summary was computed without the patch. It changes only when something
// it was computed from did: a function in a file the patch rescans or
// with the name of one of the patch's functions (the sources), or the
// functions assigned to a member it resolved a call through. The patch's
// dirty set is every function whose summary may change: the changed
// sources, the functions whose members changed, and everything computed
// from them, found by following the reverse deps upwards. A source whose
// new versions have exactly its stored summary changes nothing above it
// (cutChanges): most functions a patch touches gain no sleeping call and
// leave no lock held, and without the cut, much of the tree would be
// summarised again for a change that makes no difference to it.
//
// This is the dependency test the resolver's own taint tracking makes for
// the summaries it computes (share.go): a stored summary is used exactly
// where a computed one would be the same.

// patchSources are what the view's patch changes, as the store sees it.
type patchSources struct {
	// files are the numbers of the rescanned files, funcs the tree
	// functions named like a patch function.
	files map[int]bool
	funcs map[index.Ref]bool
	// members are the member keys whose assignments the patch changes
	// (memberChanged).
	tagged, untyped, anyMember map[string]bool
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
}

// memberChanged reports whether the patch may change how a call through
// a member resolves: key is "struct.member" for a call resolved through
// its struct type (changed by an assignment of that struct's member, or
// one whose struct is unknown), a bare member otherwise (changed by any
// assignment of it).
func (s *patchSources) memberChanged(key string) bool {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return s.tagged[key] || s.untyped[key[i+1:]]
	}
	return s.anyMember[key]
}

// stored returns the stored summary of fn when there is one and the patch
// changes nothing it was computed from.
func (r *Resolver) stored(fn *cscan.Func) *Summary {
	if r.store == nil {
		return nil
	}
	ref, ok := r.ix.RefOf(fn)
	if !ok {
		return nil
	}
	if r.build == nil && (r.sources.all || r.sources.dirty[ref]) {
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
	if r.sources != nil && len(r.sources.moved) > 0 {
		renumber(s, r.sources.moved)
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
		untyped: map[string]bool{}, anyMember: map[string]bool{}, cut: map[index.Ref]bool{},
		moved: map[string]map[int]int{}, dirty: map[index.Ref]bool{}}
	r.sources = s
	if r.ix == nil {
		return
	}
	root := r.ix.Underlying()
	for _, p := range r.ix.OverlaidPaths() {
		if i, ok := r.ix.FileNum(p); ok {
			s.files[i] = true
		}
	}
	for name := range r.patch {
		for _, fn := range root.Funcs(name) {
			if ref, ok := root.RefOf(fn); ok {
				s.funcs[ref] = true
			}
		}
	}
	r.changedMembers()
	// The seeds: every source (until cutChanges), and the functions
	// whose members changed.
	var seeds []index.Ref
	for i := range s.files {
		seeds = append(seeds, root.FileRefs(i)...)
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
	r.cutChanges(seeds)
}

// changedKeys returns the member keys the patch changes that a record may
// have noted: "struct.member", "*.member" for a member of any struct, and
// bare members.
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
	sort.Strings(out)
	return out
}

// memberSeedHolds reports whether ref's stored summary resolved a call
// through a member the patch changes.
func (r *Resolver) memberSeedHolds(ref index.Ref) bool {
	rec, ok := r.record(ref)
	if !ok {
		return true
	}
	for _, m := range rec.members {
		if r.sources.memberChanged(m) {
			return true
		}
	}
	return false
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

// markDirty adds ref and everything computed from it to the dirty set.
func (r *Resolver) markDirty(ref index.Ref) {
	s := r.sources
	if s.dirty[ref] {
		return
	}
	s.dirty[ref] = true
	queue := []index.Ref{ref}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		rec, ok := r.record(x)
		if !ok {
			continue
		}
		for _, p := range rec.rdeps {
			if !s.dirty[p] {
				s.dirty[p] = true
				queue = append(queue, p)
			}
		}
	}
}

// cutChanges makes the dirty set from the seeds. A source is a candidate
// for the cut when it has a stored summary and new versions (the
// function of that name in the rescanned file, the patch's functions of
// that name). The candidates are first assumed cut, and their new
// versions summarised under that assumption (their summaries may reach
// each other's): when one turns out different from the stored summary,
// it is dirtied and everything is summarised again without it, until the
// assumption holds.
func (r *Resolver) cutChanges(seeds []index.Ref) {
	s := r.sources
	root := r.ix.Underlying()
	versions := map[index.Ref][]*cscan.Func{}
	files := map[int]*cscan.File{}
	var cands []index.Ref
	for _, ref := range seeds {
		if _, ok := versions[ref]; ok || s.dirty[ref] {
			continue
		}
		candidate := s.files[ref.File()] || s.funcs[ref]
		if candidate {
			// A source whose members also changed is not cut.
			candidate = !r.memberSeedHolds(ref)
		}
		var news []*cscan.Func
		if candidate {
			old := root.FuncOf(ref)
			if old == nil {
				candidate = false
			} else {
				if s.files[ref.File()] {
					f, ok := files[ref.File()]
					if !ok {
						f = r.ix.File(old.File)
						files[ref.File()] = f
					}
					if f != nil {
						for _, fn := range f.Funcs {
							if fn.Name == old.Name {
								news = append(news, fn)
							}
						}
					}
				}
				news = append(news, r.patch[old.Name]...)
			}
		}
		rec, ok := r.record(ref)
		if !candidate || len(news) == 0 || !ok || rec.rest == nil {
			if s.files[ref.File()] || s.funcs[ref] || r.memberSeedHolds(ref) {
				r.markDirty(ref)
			}
			continue
		}
		versions[ref] = news
		cands = append(cands, ref)
	}
	for _, ref := range cands {
		s.cut[ref] = true
	}
	for {
		refuted := false
		for _, ref := range cands {
			if !s.cut[ref] {
				continue
			}
			want := r.storedEnc(ref)
			for _, fn := range versions[ref] {
				if !sameSummary(r.SummaryOf(fn, 0), want) {
					delete(s.cut, ref)
					r.markDirty(ref)
					refuted = true
					break
				}
			}
		}
		// Summaries computed under the refuted assumption are dropped;
		// and once it holds, those computed to check it too: the
		// analysis then summarises in its own order, as it would without
		// a store (a recursive component's summaries depend on where it
		// is entered).
		r.memo, r.tainted, r.prev = map[*cscan.Func]*Summary{}, map[*cscan.Func]bool{}, map[*cscan.Func]*Summary{}
		r.Computed = 0
		if !refuted {
			return
		}
	}
}

// storedEnc returns the encoding of ref's stored summary as the view sees
// it (moved assignments renumbered).
func (r *Resolver) storedEnc(ref index.Ref) []byte {
	rec, ok := r.record(ref)
	if !ok || rec.rest == nil {
		return nil
	}
	if len(r.sources.moved) == 0 {
		return rec.rest
	}
	s, ok := decodeSummary(rec.rest)
	if !ok {
		return nil
	}
	renumber(s, r.sources.moved)
	e := &sumEncoder{}
	e.summary(s)
	return e.buf
}

// sameSummary reports whether s is the summary stored as enc: the same
// reach with the same chain, the same effects.
func sameSummary(s *Summary, enc []byte) bool {
	if s == nil || enc == nil {
		return false
	}
	e := &sumEncoder{}
	e.summary(s)
	return string(e.buf) == string(enc)
}

// assignedAt is how a chain step quotes where a function was assigned to
// a member (ViaStep).
const assignedAt = "(assigned at "

// renumber rewrites the assignment places quoted in s's chains that the
// patch moved.
func renumber(s *Summary, moved map[string]map[int]int) {
	steps := func(ss []report.Step) {
		for i := range ss {
			ss[i].What = renumberWhat(ss[i].What, moved)
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
		reach(&s.ArgReaches[i].Reach)
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

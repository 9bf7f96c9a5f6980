package sumstore

import (
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// Engine is what the store asks of the lock-context engine (a lockctx
// Resolver over the view): the climb (Settle) summarises functions in the
// view and drops what it summarised from summaries that changed.
type Engine interface {
	// SummaryOf returns fn's summary in the view, memoised.
	SummaryOf(fn *cscan.Func) *summary.Summary
	// Forget drops fn's memoised summary and reports whether there was
	// one.
	Forget(fn *cscan.Func) bool
	// Reset drops every memoised summary and what was found with them.
	Reset()
}

// View is the store as one view of the tree sees it (a resolver's, for a
// patch or for a Prepare): the records it read, and, once Settle has
// run, which stored summaries hold under the view's patch.
type View struct {
	src Source
	// ix is the view's index, patch the patch's functions by name.
	ix    *index.Index
	patch map[string][]*cscan.Func
	// records are the records read (nil: damaged or missing).
	records map[index.Ref]*record
	// sources is what the patch changes (Settle; nil before, and in a
	// Prepare).
	sources *patchSources
	// consulted collects, while the climb computes a changed function's
	// new version, the tree functions whose summaries it asks for.
	consulted map[index.Ref]bool
	// alsoChanged are files the patch leaves alone whose functions'
	// summaries it may change all the same (AlsoChanged).
	alsoChanged []string
}

// AlsoChanged names files, before Settle, whose functions are sources
// like those of a file the patch changes: their summaries read another
// file the patch changes (an MFD child driver's, its parent's regmap).
func (v *View) AlsoChanged(paths []string) { v.alsoChanged = append(v.alsoChanged, paths...) }

// NewView returns src as seen by a view over ix with the patch's
// functions by name (nil for a Prepare's Builder): every stored summary
// holds until Settle.
func NewView(src Source, ix *index.Index, patch map[string][]*cscan.Func) *View {
	return &View{src: src, ix: ix, patch: patch, records: map[index.Ref]*record{}}
}

// Stored returns the stored summary of the function at ref when there is
// one and the view's patch changes nothing it was computed from (ref is
// the function's old ref when it is an unchanged function of a rescanned
// file, Paired).
func (v *View) Stored(ref index.Ref) *summary.Summary {
	if v.Dirty(ref) {
		return nil
	}
	rec, ok := v.record(ref)
	if !ok || rec.rest == nil {
		return nil
	}
	s, ok := summary.Decode(rec.rest)
	if !ok {
		return nil
	}
	if v.sources != nil && v.sources.renumbers() {
		v.sources.renumber(s)
	}
	return s
}

// record returns the decoded stored record of ref (cached).
func (v *View) record(ref index.Ref) (*record, bool) {
	if rec, ok := v.records[ref]; ok {
		return rec, rec != nil
	}
	side, _ := v.src.(*sideSource)
	if side != nil {
		if rec, ok := side.decoded(ref); ok {
			v.records[ref] = rec
			return rec, rec != nil
		}
	}
	rec, ok := decodeRecord(v.src.get(ref))
	var p *record
	if ok {
		p = &rec
	}
	v.records[ref] = p
	if side != nil {
		side.keep(ref, p)
	}
	return p, ok
}

// Paired returns the old ref of fn when fn is an unchanged function of a
// rescanned file, whose stored summary it keeps (unchangedfuncs.go).
func (v *View) Paired(fn *cscan.Func) (index.Ref, bool) {
	if v.sources == nil {
		return 0, false
	}
	ref, ok := v.sources.pairedRef[fn]
	return ref, ok
}

// Consult notes that the summary of fn was asked for: while the climb
// computes a changed function's new version, the tree functions it reads
// are its deps, which the store does not know (climb.go).
func (v *View) Consult(fn *cscan.Func) {
	if v.consulted == nil {
		return
	}
	ref, ok := v.Paired(fn)
	if !ok {
		ref, ok = v.ix.RefOf(fn)
	}
	if ok {
		v.consulted[ref] = true
	}
}

// WrapperRows returns the callback rows with the registration wrappers
// stored with the summaries; ok is false when they cannot be read (or a
// Prepare has not derived them yet).
func (v *View) WrapperRows() (rows []registrations.Callback, ok bool) { return v.src.wrapperRows() }

// TreeRegs returns the tree's registrations stored with the wrapper rows
// (registrations.Table.StoreTree); ok is false when there are none.
func (v *View) TreeRegs() (*registrations.StoredRegs, bool) { return v.src.treeRegs() }

// Dirty reports whether the stored summary of the function at ref does
// not hold in the view (Settle found it changed, or it lies above such a
// change).
func (v *View) Dirty(ref index.Ref) bool {
	return v.sources != nil && (v.sources.all || v.sources.isDirty(ref))
}

// Stats is what a view's Settle did, and its store's record cache.
type Stats struct {
	// Climbed counts the summaries the climb computed; Above the
	// functions dirtied with everything above them.
	Climbed, Above int
	// Paired are the names of the unchanged functions of rescanned files,
	// sorted.
	Paired []string
	// Cached counts the decoded records the store keeps, Evicted those
	// dropped to stay within the index's budget.
	Cached, Evicted int64
}

// Stats returns the view's statistics.
func (v *View) Stats() Stats {
	var st Stats
	if s := v.sources; s != nil {
		st.Climbed, st.Above = s.climbed, s.closed.len()
		for fn := range s.pairedRef {
			st.Paired = append(st.Paired, fn.Name)
		}
		sort.Strings(st.Paired)
	}
	if side, ok := v.src.(*sideSource); ok {
		side.mu.Lock()
		st.Cached, st.Evicted = int64(side.recs.len()), side.recs.evicted
		side.mu.Unlock()
	}
	return st
}

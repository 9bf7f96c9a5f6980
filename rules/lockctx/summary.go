package lockctx

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/sumstore"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Effect, Reach and Summary are the engine's summaries (package
// summary), named here for the rules that read them.
type (
	Effect  = summary.Effect
	Reach   = summary.Reach
	Summary = summary.Summary
)

// Resolver finds callee definitions and computes summaries over one view
// (the post-patch or the pre-patch tree, and the patch's functions).
//
// Summaries are bottom-up facts with no depth limit: a function's summary
// is computed from its callees' summaries, memoised per function, and
// recursion (a strongly connected component of the call graph) is iterated
// until no summary of the component changes.
type Resolver struct {
	m     *Model
	ix    *index.Index
	patch map[string][]*cscan.Func
	// preimages maps a patch function analysed from its hunks' post-image
	// (its file's hunks did not apply to the tree) to their pre-image;
	// neutral holds the names whose post-images change nothing a summary
	// holds (findNeutral): calls to them reach the tree's version.
	preimages map[*cscan.Func]*cscan.Func
	neutral   map[string]bool
	memo      map[*cscan.Func]*Summary
	// stack holds the functions being summarised, low their lowest
	// reachable stack position (Tarjan's lowlink), at their position.
	stack []*cscan.Func
	pos   map[*cscan.Func]int
	low   []int
	// prev holds the summaries of a component's previous iteration, read
	// at back edges.
	prev map[*cscan.Func]*Summary
	// pending are provisional summaries of component members, finalised
	// by the component's root; pendingAt holds, for each, a frame of its
	// component that was open when it returned or when it was last read
	// (openFrame).
	pending   []*cscan.Func
	pendingAt map[*cscan.Func]*cscan.Func
	// unresolved counts callees not found (patch-only mode).
	unresolved map[string]bool
	// nested counts the summaries being computed: calls through pointers
	// inside them are followed only when resolved by struct type.
	nested int
	// Computed counts the summaries computed (statistics).
	Computed int
	// regs finds the callback registrations of the view (package
	// registrations).
	regs *registrations.Table
	// typ answers the struct-type questions of the view (package typing);
	// what it looks up is noted as the summary's dependencies (noteMember).
	typ *typing.Typer
	// paramCalls caches whether a function calls the function passed in
	// a parameter (paramcall.go).
	paramCalls map[paramKey][]report.Step
	// paramHeld caches ParamCallHeld.
	paramHeld map[paramKey][]Held
	// shared holds the summaries that do not depend on the patch, shared
	// by the resolvers of every patch over the same tree (sharedsummaries.go);
	// frameTaint marks the frames whose summary depends on it.
	shared     *sharedSummaries
	frameTaint []bool
	tainted    map[*cscan.Func]bool
	// facts caches what is read from a file's source (fileMemo): a
	// FileTarget's facts, whether a file lifts a callback row (unless.go).
	facts map[string]any
	// view is the tree's stored summaries as the view sees them (package
	// sumstore; nil when none): which hold under the patch.
	view *sumstore.View
	// build is set inside Prepare: frameDeps collects, per frame of the
	// stack, what its summary is computed from, lastDeps keeps that until
	// the summary is final (stored.go).
	build     *sumstore.Builder
	frameDeps []depsOf
	lastDeps  map[*cscan.Func]depsOf
	// funcsCache and refsCache keep the index's answers to Funcs and
	// RefOf: the index keeps them too, in sync.Maps, and a summary asks
	// for every call (a tenth of Prepare went to those loads).
	funcsCache map[string][]*cscan.Func
	refsCache  map[*cscan.Func]refAnswer
	// familyCache holds the view's initializers by address per driver
	// family (addrassigns.go).
	familyCache map[string][]index.Assign
	// fileAddrCache holds, per file, its initializers naming functions by
	// address (ownAddrAssigns).
	fileAddrCache map[string][]index.Assign
	// macros holds the function-like macros of each file read, parsed as
	// functions (macro.go).
	macros map[string]map[string]macroDef
	// pubHeaderPos holds the place of each kernel-wide header of a file
	// in pubHeaders' order; macroHomes the headers filed so far
	// (homesFiled) that define each function-like macro name (macro.go).
	// mfdParentsOf holds the files registering each MFD cell name in the
	// view, changedChildren the files whose functions' summaries a change
	// to such a parent makes differ (mfdparent.go, mfdchildren.go).
	mfdParentsOf    map[string][]string
	changedChildren map[string]bool
	pubHeaderPos    map[string]map[string]int
	macroHomes      map[string][]string
	homesFiled      map[string]bool
	// elseCondCache holds, per function, the condition of the if whose else
	// branch starts on a line ("" when none; flagcond.go).
	elseCondCache map[*cscan.Func]map[int]string
	// exitGuardCache holds, per function, the guards its early exits put
	// on the lines after them (exitguard.go).
	exitGuardCache map[*cscan.Func][]exitGuard
}

// refAnswer is an answer of Index.RefOf.
type refAnswer struct {
	ref index.Ref
	ok  bool
}

// funcs returns the view's definitions of name (Index.Funcs).
func (r *Resolver) funcs(name string) []*cscan.Func {
	fns, ok := r.funcsCache[name]
	if !ok {
		fns = r.ix.Funcs(name)
		r.funcsCache[name] = fns
	}
	return fns
}

// refOf returns the stored ref of fn (Index.RefOf).
func (r *Resolver) refOf(fn *cscan.Func) (index.Ref, bool) {
	a, ok := r.refsCache[fn]
	if !ok {
		a.ref, a.ok = r.ix.RefOf(fn)
		r.refsCache[fn] = a
	}
	return a.ref, a.ok
}

// NewResolver returns a resolver over one view: ix is the tree's index
// (nil in patch-only mode), patch the patch's versions of functions by name
// (looked up first). Summaries have no depth limit.
func NewResolver(m *Model, ix *index.Index, patch map[string][]*cscan.Func) *Resolver {
	return NewPatchResolver(m, ix, patch, nil)
}

// NewPatchResolver is NewResolver for a post-patch view in which some of
// the patch's functions are their hunks' post-images, their files' hunks
// not having applied to the tree: preimages maps each such function to
// the hunks' pre-image. A post-image whose summary is its pre-image's
// but for line numbers changes nothing a summary holds: calls to its name
// reach the tree's version, with a store or without (findNeutral). The
// post-images themselves are still what SummaryOf of them computes.
func NewPatchResolver(m *Model, ix *index.Index, patch map[string][]*cscan.Func, preimages map[*cscan.Func]*cscan.Func) *Resolver {
	r := &Resolver{m: m, ix: ix, patch: patch, preimages: preimages, memo: map[*cscan.Func]*Summary{},
		pos: map[*cscan.Func]int{}, pendingAt: map[*cscan.Func]*cscan.Func{}, prev: map[*cscan.Func]*Summary{}, unresolved: map[string]bool{},
		facts:      map[string]any{},
		paramCalls: map[paramKey][]report.Step{}, paramHeld: map[paramKey][]Held{},
		tainted:  map[*cscan.Func]bool{},
		shared:   sharedFor(m, ix),
		lastDeps: map[*cscan.Func]depsOf{}, funcsCache: map[string][]*cscan.Func{}, refsCache: map[*cscan.Func]refAnswer{},
		familyCache: map[string][]index.Assign{}, fileAddrCache: map[string][]index.Assign{}, macros: map[string]map[string]macroDef{},
		elseCondCache: map[*cscan.Func]map[int]string{}, exitGuardCache: map[*cscan.Func][]exitGuard{},
		pubHeaderPos: map[string]map[string]int{}, macroHomes: map[string][]string{}, homesFiled: map[string]bool{}}
	r.typ = typing.New(ix, r.noteMember)
	r.regs = registrations.New(registrations.Config{Index: ix, Patch: patch, ID: m.id, Callbacks: m.callbacks, Typer: r.typ, Note: r.noteMember,
		Stored: func() ([]Callback, bool) {
			if r.view == nil {
				return nil, false
			}
			return r.view.WrapperRows()
		},
		StoredRegs: func() (*registrations.StoredRegs, bool) {
			if r.view == nil {
				return nil, false
			}
			return r.view.TreeRegs()
		}})
	if st := openStore(m, ix); st != nil {
		// The store replaces the summaries shared in memory, which are
		// exact only for the patch they were computed with.
		r.shared = nil
		r.view = sumstore.NewView(st, ix, patch)
	}
	// The neutral post-images are found with every stored summary read
	// as it is; then the store settles which hold under the patch.
	r.findChangedChildren()
	r.findNeutral()
	if r.view != nil {
		r.view.AlsoChanged(slices.Sorted(maps.Keys(r.changedChildren)))
		r.view.Settle(storeEngine{r}, r.neutral, r.typ)
	}
	return r
}

// findNeutral finds the patch's post-images that change nothing a
// summary holds. A post-image is partial: its summary lacks every call
// the hunks do not show, which is no change the patch makes, so set
// against the tree's version it always "loses" something, and with it
// every caller would. Its pre-image lacks the same. A post-image whose
// summary has its pre-image's shape (summary.AppendShape: the lines are
// left out, as a hunk's lines are the patch's, not the tree's), and that
// calls the same parameters (appendParamCalls), is neutral: calls to
// its name reach the tree's version (lookup), and it is no
// source of the store's climb. The others stand for their names as
// before.
//
// Each name is decided in the tree as it is: every candidate is taken
// as neutral while the shapes are computed (so a call from one into
// another, or back into itself, reaches the tree's version on both
// sides), no file of the view is rescanned, and a function the tree
// defines is either a candidate or none is decided. Stored summaries
// then hold for every function read, so a store and computing
// everything decide alike. A function the tree does not define (no
// pre-image) neither counts nor is neutral: no tree function's summary
// reached it. Everything summarised here is dropped.
func (r *Resolver) findNeutral() {
	if len(r.preimages) == 0 || r.ix == nil || len(r.ix.OverlaidPaths()) > 0 {
		return
	}
	names := make([]string, 0, len(r.patch))
	for name, fns := range r.patch {
		all := true
		for _, fn := range fns {
			all = all && r.preimages[fn] != nil
		}
		switch {
		case all:
			names = append(names, name)
		case len(r.ix.Funcs(name)) > 0:
			return
		}
		// A function the tree does not define: no tree function's
		// summary reached it, and calls to it still reach the patch's.
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	r.neutral = map[string]bool{}
	for _, name := range names {
		r.neutral[name] = true
	}
	// Nothing summarised while deciding is kept: a name found changed
	// will not be neutral after, so what was summarised through it (a
	// callee calling back into it) holds for no view, and must not reach
	// the summaries shared without a store either.
	shared := r.shared
	r.shared = nil
	defer func() {
		r.shared = shared
		r.resetMemo()
	}()
	var changed []string
	for _, name := range names {
		var pre, post []byte
		for _, fn := range r.patch[name] {
			post = r.appendParamCalls(summary.AppendShape(post, r.SummaryOf(fn)), fn)
			pre = r.appendParamCalls(summary.AppendShape(pre, r.SummaryOf(r.preimages[fn])), r.preimages[fn])
		}
		if string(pre) != string(post) {
			changed = append(changed, name)
		}
	}
	for _, name := range changed {
		delete(r.neutral, name)
	}
}

// appendParamCalls appends which of fn's parameters it calls (directly
// or by passing it on, ParamCalled): no part of a summary, but what a
// caller passing a function reaches through fn (callbackArgReach), so a
// change the post-image makes there too.
func (r *Resolver) appendParamCalls(b []byte, fn *cscan.Func) []byte {
	for i := range r.typ.Params(fn) {
		_, calls := r.ParamCalled(fn, i)
		b = append(b, map[bool]byte{false: '0', true: '1'}[calls])
	}
	return b
}

// Neutral reports whether calls to name reach the tree's version although
// the patch has a post-image of it, its hunks changing nothing a summary
// holds (findNeutral).
func (r *Resolver) Neutral(name string) bool { return r.neutral[name] }

// maxSummaryCalls bounds the calls one summary looks at.
const maxSummaryCalls = 4000

// lookup returns the definition of name a call from file fromFile reaches:
// the patch's version first (unless neutral, see findNeutral), then the
// tree's (same file, then headers and non-static definitions). Several non-static candidates (per-arch
// variants) are all returned.
func (r *Resolver) lookup(name, fromFile string) []*cscan.Func {
	if fns := r.patch[name]; len(fns) > 0 && !r.neutral[name] {
		return cscan.PickDefs(fns, fromFile)
	}
	if r.ix == nil {
		return nil
	}
	all := r.funcs(name)
	defs := cscan.PickDefs(all, fromFile)
	if len(defs) == 1 && defs[0].File == fromFile && configStub(defs[0]) && len(all) > 1 {
		// A header's wrapper calling a function the same header stubs
		// out for builds without the feature (dma_free_coherent() ->
		// dma_free_attrs(), "{ }" under !CONFIG_HAS_DMA): the call
		// reaches the real definition in every build that has one.
		defs = cscan.PickDefs(all, "")
	}
	for _, fn := range defs {
		r.noteDep(fn)
	}
	return defs
}

// calleeSummary returns the summary of the function a call reaches; nil
// when unknown.
func (r *Resolver) calleeSummary(c cscan.Call, caller *cscan.Func) *Summary {
	name, fromFile := c.Name, caller.File
	if strings.ContainsAny(name, ">.") || registrations.TableName(name) != "" {
		return r.withMemberEffects(r.pointerSummary(c, caller), c, caller)
	}
	if ft, ok := r.m.target.(FileTarget); ok && ft.FileDependent(c) {
		// A primitive decided by the calling file (a regmap access is
		// atomic in a file that asks fast_io or maps MMIO): its row
		// answers (reachesAt), not the definition it would lead into.
		return nil
	}
	if at, ok := r.m.target.(ArgTarget); ok && at.ArgPrimitive(c) {
		// So is one decided by an argument's value: a kmalloc() with
		// GFP_ATOMIC does not sleep, whatever its definition reaches on
		// paths the mask rules out (memcg reclaim).
		return nil
	}
	defs := r.lookup(name, fromFile)
	if len(defs) == 0 {
		if s := r.macroSummary(name, fromFile); s != nil {
			return s
		}
		if !isUpperName(name) {
			r.unresolved[name] = true
		}
		return nil
	}
	// The call reaches the target when every definition a build can pick
	// does (another architecture's variant or a config stub does not
	// count, see buildable); its effects are the first such definition's.
	picked := buildable(defs, fromFile)
	if len(picked) == 0 || r.m.anyContextFile(picked[0].File) {
		return nil
	}
	first := r.SummaryOf(picked[0])
	var reach *Reach
	allReach := true
	for _, fn := range picked {
		s := r.SummaryOf(fn)
		if s.Reach == nil {
			allReach = false
		} else if reach == nil {
			reach = s.Reach
		}
	}
	switch {
	case !allReach && first.Reach != nil:
		c := *first
		c.Reach = nil
		return &c
	case allReach && first.Reach == nil:
		c := *first
		c.Reach = reach
		return &c
	}
	return first
}

// SummaryOf computes (memoised) the summary of fn, following callees to
// any depth.
func (r *Resolver) SummaryOf(fn *cscan.Func) *Summary {
	r.noteDep(fn)
	if r.view != nil {
		r.view.Consult(fn)
	}
	if s, ok := r.memo[fn]; ok {
		if r.tainted[fn] {
			r.taint()
		}
		if at, ok := r.pendingAt[fn]; ok {
			// A provisional summary, redone with its component's next
			// round: whatever is computed from it is redone with it.
			if i, ok := r.openFrame(fn, at); ok {
				r.lowerTop(i)
			}
		}
		return s
	}
	_, paired := r.pairedOf(fn)
	if !r.source(fn) || paired {
		if s := r.stored(fn); s != nil {
			r.memo[fn] = s
			return s
		}
		if s := r.shared.get(fn); s != nil {
			r.memo[fn] = s
			return s
		}
	}
	if i, ok := r.pos[fn]; ok {
		// A back edge: fn is being summarised further up. Use its previous
		// round's summary and mark the frames down to it as one component.
		r.lowerTop(i)
		if s := r.prev[fn]; s != nil {
			return s
		}
		return &Summary{}
	}
	for round := 0; ; round++ {
		idx := len(r.stack)
		r.stack = append(r.stack, fn)
		r.low = append(r.low, idx)
		r.pos[fn] = idx
		r.frameTaint = append(r.frameTaint, r.source(fn))
		if r.build != nil {
			r.frameDeps = append(r.frameDeps, depsOf{})
		}
		mark := len(r.pending)
		s := r.compute(fn)
		low := r.low[idx]
		tainted := r.frameTaint[idx]
		r.stack, r.low, r.frameTaint = r.stack[:idx], r.low[:idx], r.frameTaint[:idx]
		if r.build != nil {
			r.lastDeps[fn] = r.frameDeps[idx]
			r.frameDeps = r.frameDeps[:idx]
		}
		delete(r.pos, fn)
		if tainted {
			r.tainted[fn] = true
			r.taint()
		}
		if low < idx {
			// Part of a component rooted further up: provisional, redone
			// with the root's next round.
			if top := idx - 1; top >= 0 && low < r.low[top] {
				r.low[top] = low
			}
			r.memo[fn] = s
			r.pending = append(r.pending, fn)
			r.pendingAt[fn] = r.stack[low]
			return s
		}
		// fn roots its component: the pending members summarised since it
		// was pushed are final when no summary changed this round.
		comp := append([]*cscan.Func(nil), r.pending[mark:]...)
		r.pending = r.pending[:mark]
		for _, g := range comp {
			delete(r.pendingAt, g)
		}
		changed := r.changed(fn, s)
		for _, g := range comp {
			if r.changed(g, r.memo[g]) {
				changed = true
			}
		}
		if len(comp) == 0 || !changed || round+1 >= maxComponentRounds {
			r.memo[fn] = s
			if len(comp) == 0 && !tainted {
				r.shared.put(fn, s)
			}
			if r.build != nil {
				// Without a patch, taint only says that a recursive
				// component was entered below fn. The members of a
				// component keep the summaries of its final round.
				r.keep(fn, s)
				for _, g := range comp {
					r.keep(g, r.memo[g])
				}
			}
			for _, g := range comp {
				delete(r.prev, g)
			}
			delete(r.prev, fn)
			return s
		}
		r.prev[fn] = s
		for _, g := range comp {
			r.prev[g] = r.memo[g]
			delete(r.memo, g)
		}
	}
}

// compute summarises fn from its callees' summaries.
func (r *Resolver) compute(fn *cscan.Func) *Summary {
	r.Computed++
	r.nested++
	defer func() { r.nested-- }()
	s, acquires := r.flatSummary(fn)
	// The flat summary's releases are in its callees' terms (the walk
	// renames them by the arguments), so which of them a caller can name
	// (callerDrops) is known only after the walk.
	if len(s.Acquires)+len(s.CondAcquires)+len(s.Drops) > 0 || s.Reach != nil && r.releases(fn) || branchAcquires(r.m, fn) {
		r.refineEffects(fn, s, false)
	} else if acquires && returnsValue(fn) {
		// A helper that may return with a context held on some paths
		// only (heldOnReturn, retheld.go).
		r.refineEffects(fn, s, true)
	}
	s.Acquires, s.CondAcquires, s.Drops = dedupEffects(s.Acquires), dedupEffects(s.CondAcquires), r.callerDrops(fn, dedupEffects(s.Drops))
	if s.Reach != nil && len(s.Reach.Drops) > 1 {
		p := *s.Reach
		p.Drops = dedupEffects(p.Drops)
		s.Reach = &p
	}
	if s.Alt != nil && (s.Reach == nil || s.Reach.Cond == nil || sameParamCond(s.Alt.Cond, s.Reach.Cond)) {
		// The refinement chose another Reach: Alt stands only beside a
		// conditional one, for other values.
		s.Alt = nil
	}
	return s
}

// dedupEffects keeps the first effect of each context kind and key: a
// caller needs one per context, and chains of helpers would otherwise
// accumulate them.
func dedupEffects(es []Effect) []Effect {
	if len(es) < 2 {
		return es
	}
	var out []Effect
	for _, e := range es {
		dup := false
		for _, o := range out {
			if o.Kind == e.Kind && o.Key == e.Key {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out
}

// isUpperName reports a macro-style name (BUG, WARN_ON, READ_ONCE).
func isUpperName(n string) bool {
	return strings.ToUpper(n) == n
}

// Unresolved returns the callees that were not found (sorted); without a
// tree these are the functions outside the patch.
func (r *Resolver) Unresolved() []string {
	out := make([]string, 0, len(r.unresolved))
	for n := range r.unresolved {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Index returns the resolver's tree index (nil in patch-only mode).
func (r *Resolver) Index() *index.Index { return r.ix }

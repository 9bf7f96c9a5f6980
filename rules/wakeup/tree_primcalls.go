package wakeup

import (
	"fmt"
	"sort"
	"sync"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
)

// primSiteSet are the calls of wait-queue primitives in one index view,
// indexed by the identifiers of their arguments.
type primSiteSet struct {
	calls  []treeCall
	byWord map[string][]int
	// stored, when set, replaces calls and byWord: the tree's sites by
	// identifier (tree_sitestore.go), decoded from ix as asked for into done.
	// For a view over an overlay (the patches before this one in a
	// series), the sites of the files it rescanned are left out of stored
	// and taken from over instead.
	stored map[string][]siteRef
	ix     *index.Index
	view   *index.Index
	over   *primSiteSet
	mu     sync.Mutex
	done   map[string][]treeCall
}

// on returns the calls with identifier w in their arguments, in the
// order of the index.
func (ps *primSiteSet) on(w string) []treeCall {
	if ps.stored == nil {
		out := make([]treeCall, 0, len(ps.byWord[w]))
		for _, i := range ps.byWord[w] {
			out = append(out, ps.calls[i])
		}
		return out
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if out, ok := ps.done[w]; ok {
		return out
	}
	var out []treeCall
	for _, s := range ps.stored[w] {
		fn := ps.ix.FuncOf(s.Ref)
		if fn == nil || int(s.Call) >= len(fn.Calls) {
			continue // cannot happen within one generation
		}
		if ps.over != nil && ps.view.Overlaid(fn.File) {
			continue
		}
		out = append(out, treeCall{Func: fn, Call: fn.Calls[s.Call]})
	}
	if ps.over != nil {
		// In the view's order (index.CallsTo): by file, line, function.
		out = append(out, ps.over.on(w)...)
		sort.SliceStable(out, func(i, j int) bool {
			return index.CallSiteLess(index.CallSite(out[i]), index.CallSite(out[j]))
		})
	}
	ps.done[w] = out
	return out
}

// overlayCalls returns the primitive calls of the files view rescanned.
func overlayCalls(p *prims, view *index.Index) []treeCall {
	var out []treeCall
	for _, path := range view.OverlaidPaths() {
		out = appendFileCalls(out, p, view.File(path))
	}
	return out
}

// appendFileCalls appends the primitive calls of file f (nil: none).
func appendFileCalls(out []treeCall, p *prims, f *cscan.File) []treeCall {
	if f == nil {
		return out
	}
	for _, fn := range f.Funcs {
		for _, c := range fn.Calls {
			if p.isPrimitive(c.Name) {
				out = append(out, treeCall{Func: fn, Call: c})
			}
		}
	}
	return out
}

func newPrimSites(calls []treeCall) *primSiteSet {
	ps := &primSiteSet{calls: calls, byWord: map[string][]int{}}
	for i, c := range calls {
		for _, w := range siteWords(c.Call) {
			ps.byWord[w] = append(ps.byWord[w], i)
		}
	}
	return ps
}

// primSites returns the primitive call sites of the base tree (computed
// once per table set and memoised on the base index) and of the files an
// overlay rescanned (the patch's files), which replace the base's.
func (r *checker) primSites(idx *index.Index) (base, over *primSiteSet) {
	p := r.p
	b := idx.Base()
	key := fmt.Sprintf("rules/wakeup:prim-sites:%p", p)
	base = b.Memo(key, func() any {
		if words := loadSites(p, b.Underlying()); words != nil {
			ps := &primSiteSet{stored: words, ix: b.Underlying(), view: b, done: map[string][]treeCall{}}
			if len(b.OverlaidPaths()) > 0 {
				ps.over = newPrimSites(overlayCalls(p, b))
			}
			return ps
		}
		var out []treeCall
		for _, s := range b.CallsTo(p.isPrimitive) {
			out = append(out, treeCall{Func: s.Func, Call: s.Call})
		}
		return newPrimSites(out)
	}).(*primSiteSet)
	if idx == b {
		return base, nil
	}
	var extra []treeCall
	seen := map[string]bool{}
	for _, f := range r.pass.Change.Files {
		for _, path := range []string{f.NewPath, f.OldPath} {
			if path == "" || seen[path] || !idx.Overlaid(path) {
				continue
			}
			seen[path] = true
			extra = appendFileCalls(extra, p, idx.File(path))
		}
	}
	return base, newPrimSites(extra)
}

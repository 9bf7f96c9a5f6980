package wakeup

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/index"
)

// primSiteSet are the calls of wait-queue primitives in one index view,
// indexed by the identifiers of their arguments.
type primSiteSet struct {
	calls  []treeCall
	byWord map[string][]int
}

func newPrimSites(calls []treeCall) *primSiteSet {
	ps := &primSiteSet{calls: calls, byWord: map[string][]int{}}
	for i, c := range calls {
		seen := map[string]bool{}
		for _, a := range c.Call.Args {
			for _, w := range identWords(a) {
				if !seen[w] {
					seen[w] = true
					ps.byWord[w] = append(ps.byWord[w], i)
				}
			}
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
			sf := idx.File(path)
			if sf == nil {
				continue
			}
			for _, fn := range sf.Funcs {
				for _, c := range fn.Calls {
					if p.isPrimitive(c.Name) {
						extra = append(extra, treeCall{Func: fn, Call: c})
					}
				}
			}
		}
	}
	return base, newPrimSites(extra)
}

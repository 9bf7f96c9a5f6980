package rules

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/index"
)

// indexCallSites returns the calls of wait-queue primitives in the view idx
// (post-patch when idx is an overlay). The base tree's sites are computed
// once per table set and memoised on the base index; files the overlay
// rescanned (the patch's files) are taken from the overlay.
func (r *wakeupRun) indexCallSites(idx *index.Index) []wkTreeCall {
	p := r.p
	base := idx.Base()
	key := fmt.Sprintf("rules/wakeup:prim-sites:%p", p)
	all := base.Memo(key, func() any {
		var out []wkTreeCall
		for _, s := range base.CallsTo(p.isPrimitive) {
			out = append(out, wkTreeCall{Func: s.Func, Call: s.Call})
		}
		return out
	}).([]wkTreeCall)
	if idx == base {
		return all
	}
	var out []wkTreeCall
	for _, c := range all {
		if !idx.Overlaid(c.Func.File) {
			out = append(out, c)
		}
	}
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
						out = append(out, wkTreeCall{Func: fn, Call: c})
					}
				}
			}
		}
	}
	return out
}

package sleep

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// newReach returns the first sleeping chain of nf, with nothing of its own
// held, that of does not have (by callee, and primitive for a sleeping
// call of nf itself), certain chains
// first; nil when there is none.
func (r *checker) newReach(nf, of *cscan.Func) *lockctx.Reach {
	reaches := func(res *lockctx.Resolver, fn *cscan.Func) []*lockctx.Reach {
		var out []*lockctx.Reach
		lockctx.Walk(res, fn, func(v lockctx.Visit) {
			if v.Reach != nil && !v.State.Dead && v.State.Empty() {
				p := *v.Reach
				out = append(out, &p)
			}
		})
		return out
	}
	// A path is the call it starts with and, for a sleeping primitive
	// called here, that primitive: the arguments of the call are no part
	// of it (msleep(100) made msleep(200) is no new way to sleep). A call
	// of a function that could already sleep is no new way to sleep
	// either when its first sleep is now another one (a callee deeper
	// down changed): that callee is checked on its own if the patch
	// changed it. A chain the old version took only for callers passing
	// a flag (a mask chosen by `may_sleep ? ... : 0`) and the new one
	// takes always is new; the other way round (a fix that lets callers
	// choose the atomic mask) it is not.
	key := func(p *lockctx.Reach) string {
		what := ""
		if len(p.Steps) > 0 {
			what = p.Steps[0].What
			if i := strings.Index(what, "("); i >= 0 {
				what = what[:i]
			}
		}
		if len(p.Steps) > 1 {
			return what
		}
		return what + "|" + p.Prim
	}
	// always: whether the old version takes the path whatever its
	// parameters.
	always := map[string]bool{}
	for _, p := range reaches(r.oldR, of) {
		always[key(p)] = always[key(p)] || p.Cond == nil
	}
	isNew := func(p *lockctx.Reach) bool {
		was, ok := always[key(p)]
		return !ok || p.Cond == nil && !was
	}
	var best *lockctx.Reach
	for _, p := range reaches(r.newR, nf) {
		if !isNew(p) {
			continue
		}
		if best == nil || best.Weak && !p.Weak {
			best = p
		}
	}
	return best
}

package sleep

import (
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// newReach returns the first sleeping chain of nf, with nothing of its own
// held, that of does not have (by callee, and primitive for a sleeping
// call of nf itself): chains of never took first, then certain ones;
// nil when there is none. When of takes the same path only for
// some values of its parameters, was holds those conditions: the chain
// is new only at the callers that pass none of them (newAt). lifted says
// the chain is new because the patch removed checks from its path
// (recorded in liftedBy for the callers' verdict).
func (r *checker) newReach(nf, of *cscan.Func) (best *lockctx.Reach, was []*lockctx.ParamCond, lifted bool) {
	// A chain the old version took only for callers passing a flag (a
	// mask chosen by `may_sleep ? ... : 0`) and the new one takes always,
	// or under another condition, is new for the callers the old
	// condition kept out; the other way round (a fix that lets callers
	// choose the atomic mask) it is not.
	// always: whether the old version takes the path whatever its
	// parameters; conds: the conditions it takes it under otherwise.
	always := map[string]bool{}
	conds := map[string][]*lockctx.ParamCond{}
	// oldLines are the lines of the old calls taking each path always.
	oldLines := map[string][]int{}
	olds, ols := walkReaches(r.oldR, of)
	for i, p := range olds {
		k := pathKey(p)
		always[k] = always[k] || p.Cond == nil
		if p.Cond == nil && !slices.Contains(oldLines[k], ols[i]) {
			oldLines[k] = append(oldLines[k], ols[i])
		}
		if p.Cond != nil {
			conds[k] = append(conds[k], p.Cond)
		}
	}
	// argLines are the lines of the old calls taking each path only for
	// a value of a parameter that reaches it (an allocation with the
	// caller's mask; a mutex behind an early exit on that mask): such a
	// path the new version takes always is new where a check the patch
	// removed kept it off (liftedguard.go), as for a path taken always.
	argLines := r.argPathLines(of)
	// The old conditions index of's parameters: with another parameter
	// list they say nothing of nf's callers, and a chain taken under
	// another condition is not known to be new.
	sameParams := slices.Equal(r.oldR.Params(of), r.newR.Params(nf))
	// rank orders the candidates: a chain the old version never took
	// first (it is new at every caller), then a certain one.
	rank := func(p *lockctx.Reach, was []*lockctx.ParamCond) int {
		n := 0
		if len(was) > 0 {
			n += 2
		}
		if p.Weak {
			n++
		}
		return n
	}
	// liftedBest are the checks lifted from best's path when that is
	// what makes it new (liftedguard.go); a path new otherwise comes
	// first.
	var liftedBest []pathCheck
	news, nls := walkReaches(r.newR, nf)
	// takes are the lines of the new calls taking each path: a path as
	// many old as new calls take is compared call by call, in order;
	// calls hoisted out of branches or branches merged are not (each old
	// call had its own checks).
	// (A walk may visit a call once per path: calls count by line.)
	takes := map[string][]int{}
	for i, p := range news {
		if k := pathKey(p); !slices.Contains(takes[k], nls[i]) {
			takes[k] = append(takes[k], nls[i])
		}
	}
	for i, p := range news {
		k := pathKey(p)
		if _, ok := always[k]; ok && (always[k] || p.Cond != nil && (sameCond(p.Cond, conds[k]) || !sameParams)) {
			if !always[k] || p.Cond != nil || best != nil || len(takes[k]) != len(oldLines[k]) {
				continue
			}
			cs := r.lifted(of, nf, oldLines[k][slices.Index(takes[k], nls[i])], nls[i])
			if cs == nil {
				continue
			}
			p.Why += "; " + describeLifted(cs)
			best, was, liftedBest = p, nil, cs
			continue
		}
		if _, ok := always[k]; !ok && p.Cond == nil && best == nil && len(argLines[k]) > 0 && len(takes[k]) == len(argLines[k]) {
			if cs := r.lifted(of, nf, argLines[k][slices.Index(takes[k], nls[i])], nls[i]); cs != nil {
				p.Why += "; " + describeLifted(cs)
				best, was, liftedBest = p, nil, cs
				continue
			}
		}
		pw := conds[k]
		if !sameParams {
			pw = nil
		}
		if best == nil || liftedBest != nil || rank(p, pw) < rank(best, was) {
			best, was, liftedBest = p, pw, nil
		}
	}
	if liftedBest != nil {
		r.liftedBy[nf.File+":"+nf.Name] = liftedBest
	} else {
		delete(r.liftedBy, nf.File+":"+nf.Name)
	}
	return best, was, liftedBest != nil
}

// walkReaches returns the sleeping chains of fn, with nothing of its own
// held, and the lines of the calls they start with.
func walkReaches(res *lockctx.Resolver, fn *cscan.Func) ([]*lockctx.Reach, []int) {
	var out []*lockctx.Reach
	var lines []int
	lockctx.Walk(res, fn, func(v lockctx.Visit) {
		if v.Reach != nil && !v.State.Dead && v.State.Empty() {
			p := *v.Reach
			out, lines = append(out, &p), append(lines, v.Call.Line)
		}
	})
	return out, lines
}

// pathKey names the path of chain p (newReach). A path is the call it
// starts with and, for a sleeping primitive called here, that primitive:
// the arguments of the call are no part of it (msleep(100) made
// msleep(200) is no new way to sleep). A call of a function that could
// already sleep is no new way to sleep either when its first sleep is
// now another one (a callee deeper down changed): that callee is checked
// on its own if the patch changed it.
func pathKey(p *lockctx.Reach) string {
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

// argPathLines returns, by path key, the lines of of's calls starting its
// argument-dependent reaches.
func (r *checker) argPathLines(of *cscan.Func) map[string][]int {
	lines := map[string][]int{}
	for _, ar := range r.oldR.SummaryOf(of).ArgReaches {
		if k := pathKey(&ar.Reach); len(ar.Steps) > 0 && !slices.Contains(lines[k], ar.Steps[0].Line) {
			lines[k] = append(lines[k], ar.Steps[0].Line)
		}
	}
	return lines
}

// sameCond reports whether c is one of cs (the same parameter and value).
func sameCond(c *lockctx.ParamCond, cs []*lockctx.ParamCond) bool {
	for _, o := range cs {
		if o.Param == c.Param && o.True == c.True && o.Value == c.Value && o.Bit == c.Bit {
			return true
		}
	}
	return false
}

// newAt evaluates at call c made by caller (at site) the conditions was
// under which the old version took a chain the new one takes (newReach):
// whether c newly reaches it (no condition holds there), and the
// conditions left on caller's own parameters, for the callers above. A
// condition the call's argument satisfies, or may satisfy and counts
// unless shown not to (not Strict), means the old version was reached
// here too.
func (r *checker) newAt(caller *cscan.Func, site callSite, c cscan.Call, was []*lockctx.ParamCond) (bool, []*lockctx.ParamCond) {
	var left []*lockctx.ParamCond
	for _, w := range was {
		keep, out := r.siteCond(caller, site, c, w)
		switch {
		case keep && out == nil:
			return false, nil
		case keep:
			left = append(left, out)
		}
	}
	return true, left
}

// looseCond reports whether one of conds counts unless a caller is shown
// not to satisfy it (not Strict): left on a caller's own parameters at a
// call made in atomic context, it says the old version may have been
// reached there too, as an unknown argument would (newAt).
func looseCond(conds []*lockctx.ParamCond) bool {
	for _, c := range conds {
		if !c.Strict {
			return true
		}
	}
	return false
}

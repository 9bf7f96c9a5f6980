package lockctx

import (
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Recursive components.
//
// SummaryOf walks the call graph depth first and finds its strongly
// connected components as Tarjan's algorithm does: a function whose
// summary reads one of a function still on the stack (a back edge), or
// the provisional summary of a member of a component not yet settled, is
// part of that component. Its first summaries are computed from
// incomplete ones (the empty summary at a back edge), so the component's
// root settles them all before any is final: it recomputes the members
// that read a summary which has changed since (settleChanged), until none
// changes or a bound on the work is reached, so that the summaries depend
// far less on the member the walk entered the component by.

// maxSettleRounds bounds the summaries computed while settling a
// component, per member.
const maxSettleRounds = 2

// settle iterates the summaries of the recursive component rooted at
// root (discovery number num), whose other members are comp, towards a
// fixpoint within the bound, and keeps them. Meanwhile the members stay provisional: a
// function first summarised while settling that reads one of them joins
// the component.
func (r *Resolver) settle(root *cscan.Func, num int, comp []*cscan.Func) {
	members := append(comp[:len(comp):len(comp)], root)
	// order[m] is m's position among the members (1-based; 0: not one).
	order := make(map[*cscan.Func]int, len(members))
	join := func(m *cscan.Func) {
		members = append(members, m)
		order[m] = len(members)
		r.pendingLow[m] = num
	}
	for i, m := range members {
		order[m] = i + 1
		r.pendingLow[m] = num
	}
	// readers[g] are the members whose summaries read g's.
	readers := map[*cscan.Func]map[*cscan.Func]bool{}
	addReads := func(m *cscan.Func) {
		for _, g := range r.reads[m] {
			if order[g] == 0 {
				continue
			}
			if readers[g] == nil {
				readers[g] = map[*cscan.Func]bool{}
			}
			readers[g][m] = true
		}
		delete(r.reads, m)
	}
	for _, m := range members {
		addReads(m)
	}
	var queue []*cscan.Func
	queued := make(map[*cscan.Func]bool, len(members))
	push := func(g *cscan.Func) {
		// In member order, so that the result does not depend on map
		// iteration.
		var xs []*cscan.Func
		for x := range readers[g] {
			if !queued[x] {
				xs = append(xs, x)
			}
		}
		sort.Slice(xs, func(i, j int) bool { return order[xs[i]] < order[xs[j]] })
		for _, x := range xs {
			queued[x] = true
			queue = append(queue, x)
		}
	}
	// The walk gave every reader the empty summary at a back edge, or a
	// provisional one: the readers of a member whose summary is not
	// empty may have read less than it holds.
	for _, m := range members {
		if settleChanged(nil, r.memo[m]) {
			push(m)
		}
	}
	for budget := maxSettleRounds * len(members); len(queue) > 0 && budget > 0; budget-- {
		m := queue[0]
		queue, queued[m] = queue[1:], false
		// m's last summary stays in memo meanwhile: a call of m by
		// itself reads it.
		old := r.memo[m]
		mark := len(r.pending)
		s, _, _, _ := r.computeFrame(m)
		r.memo[m] = s
		for _, g := range r.pending[mark:] {
			join(g)
			addReads(g)
			push(g)
		}
		r.pending = r.pending[:mark]
		addReads(m)
		if settleChanged(old, s) {
			push(m)
		}
	}
	for _, m := range members {
		delete(r.pendingLow, m)
		delete(r.reads, m)
		r.keep(m, r.memo[m])
	}
}

// settleChanged reports whether s differs from p, an earlier summary of
// the same function, in what makes its readers recompute while settling
// a component: whether it reaches the target (for sure, for any
// parameter), by a parameter's value too, and the contexts it returns
// with. The callers' contexts it
// releases (Drops) are not followed round the component: through the
// kernel's large components, whose calls through function pointers join
// unrelated subsystems, they only grow, one per round.
func settleChanged(p, s *Summary) bool {
	if p == nil {
		p = &Summary{}
	}
	if (p.Reach == nil) != (s.Reach == nil) || p.Reach != nil &&
		(p.Reach.Weak != s.Reach.Weak || (p.Reach.Cond == nil) != (s.Reach.Cond == nil)) {
		return true
	}
	return len(p.ArgReaches) != len(s.ArgReaches) || len(p.Acquires) != len(s.Acquires) ||
		len(p.CondAcquires) != len(s.CondAcquires)
}

package lockctx

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// ContextArgTarget is implemented by a Target one of whose primitives
// decides from a test of the running context passed in an argument
// (kmalloc(n, in_interrupt() ? GFP_ATOMIC : GFP_KERNEL)): whether the
// call reaches the target depends on what is held where it is made,
// which the engine knows and the test may not see (in_interrupt() is
// false under spin_lock() in process context).
type ContextArgTarget interface {
	// ContextArg returns the argument of c that may test the context.
	ContextArg(c cscan.Call) (int, bool)
	// ReachesUnder reports whether c reaches the target when that
	// argument is expr and the call runs in process context with the
	// contexts held, and why.
	ReachesUnder(c cscan.Call, expr string, held []Held) (string, bool)
}

// contextArgReach returns the reach of call c made by fn in state st
// when its deciding argument tests the context and, with what st holds,
// takes a value that reaches the target; nil otherwise (nothing held, no
// such target or argument, or a value that does not reach).
func (r *Resolver) contextArgReach(fn *cscan.Func, c cscan.Call, st State, here report.Step) *Reach {
	ct, ok := r.m.target.(ContextArgTarget)
	if !ok || st.Empty() {
		return nil
	}
	i, ok := ct.ContextArg(c)
	if !ok || i < 0 || i >= len(c.Args) {
		return nil
	}
	vs := r.argValues(fn, c.Args[i])
	why := ""
	for _, v := range vs {
		w, ok := ct.ReachesUnder(c, v, st.Held)
		if !ok {
			return nil
		}
		if why == "" {
			why = w
		}
	}
	if why == "" {
		return nil
	}
	cond, ok := r.callCond(fn, c, nil, r.condGuarded(fn, c.Guards))
	if !ok {
		return nil
	}
	return &Reach{Steps: []report.Step{here}, Prim: c.Name, Why: why, Cond: cond}
}

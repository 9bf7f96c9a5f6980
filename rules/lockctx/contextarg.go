package lockctx

import (
	"strings"

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
	// contexts held, and why. assigned says expr was stored in a local
	// variable before the call, maybe where other contexts were held: a
	// test that depends on them then decides nothing.
	ReachesUnder(c cscan.Call, expr string, held []Held, assigned bool) (string, bool)
}

// contextArgReach returns the reach of call c made by fn in state st
// when its deciding argument tests the context and, with what st holds,
// takes a value that reaches the target; nil otherwise (nothing held, no
// such target or argument, or a value that does not reach). Only what
// the calling function itself holds is seen: a mask chosen in a helper
// that its caller calls under a lock is not followed.
func (r *Resolver) contextArgReach(fn *cscan.Func, c cscan.Call, st State, here report.Step) *Reach {
	ct, ok := r.m.target.(ContextArgTarget)
	if !ok || st.Empty() {
		return nil
	}
	i, ok := ct.ContextArg(c)
	if !ok || i < 0 || i >= len(c.Args) {
		return nil
	}
	arg := strings.TrimSpace(c.Args[i])
	vs := r.argValues(fn, arg)
	assigned := len(vs) != 1 || vs[0] != arg
	why := ""
	for _, v := range vs {
		w, ok := ct.ReachesUnder(c, v, st.Held, assigned)
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

package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// ArgGuard is implemented by an ArgTarget whose context checks can test
// the deciding argument itself: `if (gfpflags_allow_blocking(gfp))` or
// `if (gfp & __GFP_DIRECT_RECLAIM)` around an allocation with gfp, or
// around a mutex. Such a guard does not make the reach conditional in the
// sense of cond_sleep_guards (a caller that may not sleep never takes the
// branch): it makes it depend on the mask the caller passes, which is
// what an argument-dependent reach already says. The reach is kept, as a
// reach on that parameter.
type ArgGuard interface {
	// GuardArg returns the expression that the guards of gs test
	// positively for reaching the target, when such tests are all that
	// make them conditional.
	GuardArg(gs []cscan.Guard) (expr string, ok bool)
	// GuardWords are words every such test contains
	// (gfpflags_allow_blocking, __GFP_DIRECT_RECLAIM): code without any
	// of them makes none.
	GuardWords() []string
}

// guardArg returns the expression c's guards test for reaching the target
// (see ArgGuard), when those tests are what make c conditional.
func (r *Resolver) guardArg(gs []cscan.Guard) (string, bool) {
	ag, ok := r.m.target.(ArgGuard)
	if !ok || !r.m.conditional(gs) {
		return "", false
	}
	return ag.GuardArg(gs)
}

// argGuarded reports whether c's guards make a reach by argument
// expression arg conditional: a context check other than a test of arg
// itself.
func (r *Resolver) argGuarded(c cscan.Call, arg string) bool {
	if !r.m.conditional(c.Guards) {
		return false
	}
	x, ok := r.guardArg(c.Guards)
	return !ok || normExpr(x) != normExpr(arg)
}

// primArgGuarded reports whether the guards of primitive call c make its
// argument-dependent reach conditional (see argGuarded).
func (r *Resolver) primArgGuarded(c cscan.Call) bool {
	at, ok := r.m.target.(ArgTarget)
	if !ok {
		return r.m.conditional(c.Guards)
	}
	i, ok := at.ArgDependent(c)
	if !ok || i < 0 || i >= len(c.Args) {
		return r.m.conditional(c.Guards)
	}
	return r.argGuarded(c, c.Args[i])
}

// guardedReach turns reach p of call c in fn, dropped because c's guards
// are conditional, into a reach on fn's parameter when the guards only test
// that parameter (a mutex under `if (gfpflags_allow_blocking(gfp))`): the
// callers passing a mask that allows blocking take it.
func (r *Resolver) guardedReach(fn *cscan.Func, c cscan.Call, p Reach) *ArgReach {
	if _, ok := r.m.target.(ArgTarget); !ok {
		return nil
	}
	x, ok := r.guardArg(c.Guards)
	if !ok {
		return nil
	}
	j := r.typ.ParamIndex(fn, x)
	if j < 0 {
		return nil
	}
	p.Steps = append([]report.Step(nil), p.Steps...)
	return &ArgReach{Param: j, Call: c, Reach: p}
}

// normExpr drops the blanks of an expression.
func normExpr(s string) string { return strings.Join(strings.Fields(s), "") }

// argExcluded reports whether c lies where a test of expression arg says
// the target cannot be reached with it: in the else branch of a positive
// test (`if (gfpflags_allow_blocking(gfp)) ... else kmalloc(n, gfp)`) or
// under a negated one (`if (!gfpflags_allow_blocking(gfp))`). Such a
// call never reaches the target, whatever the callers pass.
func (r *Resolver) argExcluded(fn *cscan.Func, c cscan.Call, arg string) bool {
	ag, ok := r.m.target.(ArgGuard)
	if !ok {
		return false
	}
	want := normExpr(arg)
	for _, g := range c.Guards {
		var cond string
		switch g.Kind {
		case "else":
			x, ok := r.elseCondOf(fn, g.Line)
			if !ok {
				continue
			}
			cond = x
		case "if":
			x := strings.TrimSpace(unwrap(g.Cond))
			if !strings.HasPrefix(x, "!") || strings.HasPrefix(x, "!=") {
				continue
			}
			cond = x[1:]
		default:
			continue
		}
		if x, ok := ag.GuardArg([]cscan.Guard{{Kind: "if", Cond: cond, Line: g.Line}}); ok && normExpr(x) == want {
			return true
		}
	}
	return false
}

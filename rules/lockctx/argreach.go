package lockctx

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// ArgTarget is implemented by a Target whose primitives reach it
// depending on an argument's value (an allocation sleeps with GFP_KERNEL,
// not with GFP_ATOMIC). The engine follows such arguments through
// parameters: a function that passes its own gfp_t parameter down to
// kmalloc() reaches the target when its caller passes a sleeping mask.
type ArgTarget interface {
	// ArgDependent returns the argument of call c that decides whether it
	// reaches the target, when c is such a primitive.
	ArgDependent(c cscan.Call) (arg int, ok bool)
	// ArgPrimitive reports whether c is a primitive an argument decides,
	// whatever value it passes: its row answers, not its definition.
	ArgPrimitive(c cscan.Call) bool
	// ReachesWith reports whether passing expr in that argument reaches
	// the target (a sleeping GFP mask), and why.
	ReachesWith(c cscan.Call, expr string) (why string, ok bool)
}

// ArgReach is a Reach that happens when the function's parameter Param
// receives a value the target accepts (package summary).
type ArgReach = summary.ArgReach

// argReach evaluates a callee's argument-dependent reaches at call c made
// by fn: a reach when c passes an accepted value, and the reaches that
// depend on fn's own parameters. A reach whose argument c's guards make
// conditional (other than by testing that argument) is left out.
func (r *Resolver) argReach(fn *cscan.Func, c cscan.Call, cs *Summary) (*Reach, []ArgReach) {
	at, ok := r.m.target.(ArgTarget)
	if !ok || cs == nil {
		return nil, nil
	}
	var reach *Reach
	var pass []ArgReach
	step := StepOf(fn, c.Line, "calls "+c.Name+"()")
	for _, ar := range cs.ArgReaches {
		if ar.Param < 0 || ar.Param >= len(c.Args) {
			continue
		}
		arg := c.Args[ar.Param]
		if r.argGuarded(c, arg) {
			continue
		}
		if why, _, vc, ok := r.valuesReach(fn, at, ar.Call, arg); ok && (vc == nil || ar.Reach.Cond == nil) {
			// Of the reaches the value takes, the one that releases the
			// fewest of the caller's contexts on its way: a helper that
			// drops the caller's lock before one allocation may make
			// another without dropping it.
			if reach == nil || len(ar.Reach.Drops) < len(reach.Drops) {
				p := ar.Reach
				if vc != nil {
					p.Cond = vc
				}
				p.Why = why + " (passed down as " + c.Name + "()'s parameter)"
				p.Steps = append([]report.Step{step}, ar.Steps...)
				reach = &p
			}
			continue
		}
		if j := r.valueParam(fn, arg); j >= 0 {
			n := ar
			n.Param = j
			n.Steps = append([]report.Step{step}, ar.Steps...)
			pass = append(pass, n)
		}
	}
	return reach, pass
}

// primArgReach returns the argument-dependent reach of a primitive call c
// in fn whose deciding argument is one of fn's parameters.
func (r *Resolver) primArgReach(fn *cscan.Func, c cscan.Call) *ArgReach {
	at, ok := r.m.target.(ArgTarget)
	if !ok {
		return nil
	}
	i, ok := at.ArgDependent(c)
	if !ok || i < 0 || i >= len(c.Args) {
		return nil
	}
	j := r.valueParam(fn, c.Args[i])
	if j < 0 || r.argExcluded(fn, c, c.Args[i]) {
		return nil
	}
	return &ArgReach{Param: j, Call: c, Reach: Reach{Steps: []report.Step{StepOf(fn, c.Line, CallText(c))}, Prim: c.Name}}
}

// ReachesWith reports whether caller fn passing expr as the parameter ar
// depends on reaches the target (a caller passing GFP_KERNEL down, or a
// local variable it sets to GFP_KERNEL), and why.
func (r *Resolver) ReachesWith(fn *cscan.Func, ar ArgReach, expr string) (string, bool) {
	at, ok := r.m.target.(ArgTarget)
	if !ok {
		return "", false
	}
	return r.reachesWithAll(at, ar.Call, r.argValues(fn, expr))
}

// ParamIndex returns the index of fn's parameter that expression expr
// names, or hands on unchanged for the target, directly or through a
// local variable (valueParam), or -1.
func (r *Resolver) ParamIndex(fn *cscan.Func, expr string) int {
	return r.valueParam(fn, expr)
}

// Params returns fn's parameter names, read from its header in the
// resolver's view (nil when unknown).
func (r *Resolver) Params(fn *cscan.Func) []string {
	return r.typ.Params(fn)
}

// PassThrough is implemented by an ArgTarget whose deciding arguments
// keep their effect through some operators: a GFP mask or-ed with flags
// (gfp | __GFP_ZERO) or with a flag cleared that does not decide
// (gfp & ~__GFP_NOWARN) sleeps exactly when gfp does.
type PassThrough interface {
	// PassThrough returns the variable expr hands on unchanged for the
	// target.
	PassThrough(expr string) (string, bool)
}

// argParam returns the index of fn's parameter that argument expression
// expr names or, for a PassThrough target, hands on, or -1.
func (r *Resolver) argParam(fn *cscan.Func, expr string) int {
	if j := r.typ.ParamIndex(fn, expr); j >= 0 {
		return j
	}
	if pt, ok := r.m.target.(PassThrough); ok {
		if v, ok := pt.PassThrough(expr); ok {
			return r.typ.ParamIndex(fn, v)
		}
	}
	return -1
}

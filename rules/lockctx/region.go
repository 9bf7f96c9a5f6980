package lockctx

import (
	"slices"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// RegionTarget is a Target some of whose primitives do not reach it
// inside a region of the function that calls them: a user access between
// pagefault_disable() and pagefault_enable() fails with -EFAULT instead of
// faulting the page in, so it does not sleep there.
type RegionTarget interface {
	// Region returns the calls that open and close the region in which
	// primitive prim does not reach the target; ok is false when no
	// region masks prim.
	Region(prim string) (open, close []string, ok bool)
}

// LesserTarget is a Target some of whose primitives a rule lets pass in
// a context it knows of (an I2C transfer in a restart handler, where the
// adapter's atomic mode is used): a chain to one ranks after the other
// chains of a summary that are as sure, and does not end the search for
// them, so that a caller in that context still sees the function's other
// sleeps.
type LesserTarget interface {
	// Lesser reports whether a chain to primitive prim ranks after the
	// summary's other chains that are as sure.
	Lesser(prim string) bool
}

// lesser reports whether a chain to primitive prim leaves the summary's
// choice open (flatBuilder.leading): some region masks it, or some
// context lets it pass (passedInContext).
func (r *Resolver) lesser(prim string) bool {
	return r.maskable(prim) || r.passedInContext(prim)
}

// passedInContext reports whether the target lets primitive prim pass
// in some context (LesserTarget).
func (r *Resolver) passedInContext(prim string) bool {
	lt, ok := r.m.target.(LesserTarget)
	return ok && lt.Lesser(prim)
}

// leading returns the reaches found so far that rank first: to a
// primitive no region masks and no context lets pass (Resolver.lesser).
func (f *flatBuilder) leading() []*Reach {
	var out []*Reach
	for _, p := range f.reaches {
		if !f.r.lesser(p.Prim) {
			out = append(out, p)
		}
	}
	return out
}

// maskable reports whether some region masks primitive prim.
func (r *Resolver) maskable(prim string) bool {
	rt, ok := r.m.target.(RegionTarget)
	if !ok {
		return false
	}
	_, _, ok = rt.Region(prim)
	return ok
}

// masked reports whether primitive prim, reached by fn's call c (the
// primitive itself, or a callee whose chain ends in it), lies in a region
// of fn that masks it (RegionTarget): more of the region's openings than
// closings before c in source order, counting those only on c's path (an
// opening or closing whose guards enclose c: the pagefault_enable() of an
// error path that returns does not end the region for the calls after
// it, a pagefault_disable() under a condition does not open it for the
// calls outside). The region is lexical, as the kernel writes it.
func (r *Resolver) masked(fn *cscan.Func, c cscan.Call, prim string) bool {
	rt, ok := r.m.target.(RegionTarget)
	if !ok || fn == nil {
		return false
	}
	opening, closing, ok := rt.Region(prim)
	if !ok {
		return false
	}
	depth := 0
	for _, x := range fn.Calls {
		if x.Line == c.Line && x.Name == c.Name && len(x.Args) == len(c.Args) {
			break
		}
		if x.Line > c.Line || !guardPrefix(x.Guards, c.Guards) {
			continue
		}
		switch {
		case slices.Contains(opening, x.Name):
			depth++
		case slices.Contains(closing, x.Name) && depth > 0:
			depth--
		}
	}
	return depth > 0
}

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

// masked reports whether primitive prim, reached by fn's call at line,
// lies in a region of fn that masks it (RegionTarget): more of the
// region's openings than closings before the line, in source order. The
// region is lexical, as the kernel writes it (pagefault_disable(); ...
// pagefault_enable(); around the accesses).
func (r *Resolver) masked(fn *cscan.Func, line int, prim string) bool {
	rt, ok := r.m.target.(RegionTarget)
	if !ok || fn == nil {
		return false
	}
	opening, closing, ok := rt.Region(prim)
	if !ok {
		return false
	}
	type mark struct{ line, delta int }
	var marks []mark
	for _, c := range fn.Calls {
		switch {
		case c.Line >= line:
		case slices.Contains(opening, c.Name):
			marks = append(marks, mark{c.Line, 1})
		case slices.Contains(closing, c.Name):
			marks = append(marks, mark{c.Line, -1})
		}
	}
	slices.SortStableFunc(marks, func(a, b mark) int { return a.line - b.line })
	depth := 0
	for _, m := range marks {
		depth = max(depth+m.delta, 0)
	}
	return depth > 0
}

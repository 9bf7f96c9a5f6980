package wakeup

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// neverWakes reports whether the tree defines name (as file would call
// it) and neither that definition nor a function it calls makes any
// wake-up: a query handed the queue's object (completion_done(),
// try_wait_for_completion()) cannot stand in for the wake-up it is
// handed the object near. A callee the tree does not define, at either
// level, may wake, but for an upper-case macro (READ_ONCE()); deeper
// callees are not followed (a query's are lock and read primitives).
func (r *checker) neverWakes(name, file string) bool {
	if r.tree == nil || r.pass.Index == nil {
		return false
	}
	defs := cscan.PickDefs(r.pass.Index.Funcs(name), file)
	if len(defs) == 0 {
		return false
	}
	for _, fn := range defs {
		if len(r.tree.view(fn).sitesOn(siteWake, "")) > 0 {
			return false
		}
		full := r.pass.Index.Full(fn)
		if full == nil {
			return false
		}
		seen := map[string]bool{}
		for _, c := range full.Calls {
			if seen[c.Name] || r.p.locks.Primitive(c.Name) || r.p.ordering(c.Name) != "" {
				continue
			}
			seen[c.Name] = true
			if r.p.isPrimitive(c.Name) || len(seen) > maxWakesWithinCalls {
				// A wait primitive, or too many callees to tell.
				return false
			}
			ds := cscan.PickDefs(r.pass.Index.Funcs(c.Name), fn.File)
			if len(ds) == 0 {
				if cscan.IsIdent(c.Name) && strings.ToUpper(c.Name) == c.Name {
					continue // READ_ONCE(), WARN_ON(): an access or a check
				}
				// A call the tree does not define (through a pointer, a
				// lower-case macro) may wake.
				return false
			}
			for _, d := range ds {
				if len(r.tree.view(d).sitesOn(siteWake, "")) > 0 {
					return false
				}
			}
		}
	}
	return true
}

package wakeup

import "github.com/autosel-bot/autosel-bot/cscan"

// neverWakes reports whether the tree defines name (as file would call
// it) and neither that definition nor a function it calls makes any
// wake-up: a query handed the queue's object (completion_done(),
// try_wait_for_completion()) cannot stand in for the wake-up it is
// handed the object near. A callee the tree does not define may wake.
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
			for _, d := range cscan.PickDefs(r.pass.Index.Funcs(c.Name), fn.File) {
				if len(r.tree.view(d).sitesOn(siteWake, "")) > 0 {
					return false
				}
			}
		}
	}
	return true
}

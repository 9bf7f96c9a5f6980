package lockctx

import (
	"github.com/autosel-bot/autosel-bot/cscan"
)

// FileTarget is implemented by a Target some of whose primitives reach it
// depending on the file making the call: a regmap accessor sleeps when
// the file creates its regmap on a bus that is not fast_io (the map's lock
// is then a mutex), and not when it maps MMIO.
type FileTarget interface {
	// FileDependent reports whether call c is such a primitive (cheap: by
	// name).
	FileDependent(c cscan.Call) bool
	// FileFacts extracts what the target needs from a file's source; it
	// is computed once per file and view.
	FileFacts(path string, src []byte) any
	// ReachesIn reports whether c, made in a file with those facts,
	// reaches the target, and why.
	ReachesIn(c cscan.Call, facts any) (why string, ok bool)
	// Undecided reports whether a file with those facts leaves c open:
	// it creates no object c works on (a driver using its parent
	// device's regmap), as opposed to creating one that does not reach
	// the target.
	Undecided(c cscan.Call, facts any) bool
}

// reachesAt reports whether call c made by fn is a target primitive: by
// the table, by the values fn gives a local variable it passes as the
// deciding argument (localArgReaches), or, for a FileTarget, given fn's
// file or the MFD drivers that register fn's file's device (mfdparent.go).
// vc is the condition on one of fn's flag parameters the deciding value
// needs, when a flag chooses it (flagChosenReach); nil otherwise.
func (r *Resolver) reachesAt(fn *cscan.Func, c cscan.Call) (why string, vc *ParamCond, ok bool) {
	if why, ok := r.m.reaches(c); ok {
		return why, nil, true
	}
	if why, vc, ok := r.localArgReaches(fn, c); ok {
		return why, vc, true
	}
	ft, ok := r.m.target.(FileTarget)
	if !ok || r.ix == nil || fn == nil || !ft.FileDependent(c) {
		return "", nil, false
	}
	if why, ok := ft.ReachesIn(c, r.fileFacts(ft, fn.File)); ok {
		return why, nil, true
	}
	why, ok = r.parentReachesIn(ft, c, fn.File)
	return why, nil, ok
}

// fileFacts returns ft's facts of a file of the view.
func (r *Resolver) fileFacts(ft FileTarget, file string) any {
	return r.fileMemo("lockctx.facts."+r.m.id+":"+file, file, func() any {
		src, err := r.ix.ReadFile(file)
		if err != nil {
			return nil
		}
		return ft.FileFacts(file, src)
	})
}

// fileMemo returns what compute finds in a file of the view, kept per
// resolver under key: computed anew for a file the patch changed, shared
// between the resolvers of a tree (the index's memo) otherwise.
func (r *Resolver) fileMemo(key, file string, compute func() any) any {
	if v, ok := r.facts[key]; ok {
		return v
	}
	var v any
	if r.ix.Overlaid(file) {
		v = compute()
	} else {
		v = r.ix.Underlying().Memo(key, compute)
	}
	r.facts[key] = v
	return v
}

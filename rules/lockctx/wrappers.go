package lockctx

import (
	"strings"
)

// maxWrapperLevels bounds how many wrappers deep a registration is
// followed (devm_usb_get_phy_by_node() -> usb_register_notifier() ->
// atomic_notifier_chain_register()).
const maxWrapperLevels = 3

// maxWrapperRows bounds the registration wrappers derived per view.
const maxWrapperRows = 256

// callbackRows returns the table's callback rows followed by the rows of
// registration wrappers: functions that hand one of their own parameters
// to a registration call's callback argument, which makes them
// registrations of that parameter (usb_register_notifier(x, nb) passes nb
// to atomic_notifier_chain_register()). A static wrapper only registers
// for calls from its own file. Derived once per resolver.
func (r *Resolver) callbackRows() []Callback {
	if r.rows != nil {
		return r.rows
	}
	if r.ix == nil {
		r.rows = append([]Callback(nil), r.m.callbacks...)
		return r.rows
	}
	// Derived from the tree without the patch, once per model and tree
	// (or read from what Prepare stored).
	r.rows, _ = r.ix.Underlying().Memo("lockctx.wrappers."+r.m.id, func() any {
		if r.store != nil {
			if rows, ok := r.store.wrapperRows(); ok {
				return rows
			}
		}
		return NewResolver(r.m, r.ix.Underlying(), nil).deriveRows()
	}).([]Callback)
	return r.rows
}

// deriveRows computes the callback rows with the registration wrappers.
func (r *Resolver) deriveRows() []Callback {
	r.rows = append([]Callback(nil), r.m.callbacks...)
	seen := map[string]bool{}
	for _, row := range r.m.callbacks {
		for _, n := range row.Names {
			seen[n] = true
		}
	}
	level := r.rows
	for depth := 0; depth < maxWrapperLevels && len(level) > 0; depth++ {
		var next []Callback
		for i := range level {
			row := &level[i]
			for _, n := range row.Names {
				next = append(next, r.wrappersOf(row, n, seen)...)
			}
		}
		if len(r.rows)+len(next) > maxWrapperRows {
			next = next[:maxWrapperRows-len(r.rows)]
		}
		r.rows = append(r.rows, next...)
		level = next
	}
	return r.rows
}

// wrappersOf returns the rows of the functions that pass one of their
// parameters to the callback argument of registration call name (of row).
func (r *Resolver) wrappersOf(row *Callback, name string, seen map[string]bool) []Callback {
	arg := row.Arg
	if a, ok := row.ArgOf[name]; ok {
		arg = a
	}
	var out []Callback
	for _, site := range r.ix.Callers(name) {
		c := site.Call
		if arg < 0 || arg >= len(c.Args) || seen[site.Func.Name] || row.file != "" && site.Func.File != row.file {
			continue
		}
		id := callbackName(c.Args[arg])
		if id == "" || strings.HasPrefix(strings.TrimSpace(c.Args[arg]), "&") || len(r.ix.Funcs(id)) > 0 {
			// A function named directly is a registration, not a
			// wrapper; "&x" is an object of the wrapper's own.
			continue
		}
		j := r.typ.ParamIndex(site.Func, id)
		if j < 0 {
			continue
		}
		seen[site.Func.Name] = true
		w := *row
		w.Names, w.Arg, w.ArgOf = []string{site.Func.Name}, j, nil
		w.Why = row.Why + " (" + site.Func.Name + "() passes its " + id + " to " + name + "())"
		if site.Func.Static && !strings.HasSuffix(site.Func.File, ".h") {
			w.file = site.Func.File
		}
		out = append(out, w)
	}
	return out
}

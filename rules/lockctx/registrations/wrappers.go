package registrations

import (
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
)

// maxWrapperLevels bounds how many wrappers deep a registration is
// followed (devm_usb_get_phy_by_node() -> usb_register_notifier() ->
// atomic_notifier_chain_register()).
const maxWrapperLevels = 3

// maxWrapperRows bounds the registration wrappers derived per view.
const maxWrapperRows = 256

// Rows returns the table's callback rows followed by the rows of
// registration wrappers: functions that hand one of their own parameters
// to a registration call's callback argument, which makes them
// registrations of that parameter (usb_register_notifier(x, nb) passes nb
// to atomic_notifier_chain_register()). A static wrapper only registers
// for calls from its own file. Derived once per table.
func (t *Table) Rows() []Callback {
	if t.rows != nil {
		return t.rows
	}
	if t.ix == nil {
		t.rows = withPatchPrefixed(append([]Callback(nil), t.callbacks...), t.patch, func(n string) bool { return len(t.patch[n]) > 0 })
		return t.rows
	}
	// Derived from the tree without the patch, once per model and tree
	// (or read from what Prepare stored).
	rows, _ := t.ix.Underlying().Memo("lockctx.wrappers."+t.id, func() any {
		if t.stored != nil {
			if rows, ok := t.stored(); ok {
				return rows
			}
		}
		return DeriveRows(t.ix.Underlying(), t.id, t.callbacks)
	}).([]Callback)
	t.rows = withPatchPrefixed(rows, t.patch, func(n string) bool { return len(t.patch[n]) > 0 || len(t.ix.Funcs(n)) > 0 })
	return t.rows
}

// withPatchPrefixed returns rows with the calls of patch's functions that
// a prefix row matches added to its names (a copy when there are any):
// a registration call the tree does not make yet. defined reports the
// names the view defines as functions, which a prefix does not match
// (withTreePrefixed).
func withPatchPrefixed(rows []Callback, patch map[string][]*cscan.Func, defined func(string) bool) []Callback {
	copied := false
	for i := range rows {
		if len(rows[i].Prefix) == 0 {
			continue
		}
		for _, fns := range patch {
			for _, fn := range fns {
				for _, c := range fn.Calls {
					if !hasPrefix(c.Name, rows[i].Prefix) || slices.Contains(rows[i].Names, c.Name) || defined(c.Name) {
						continue
					}
					if !copied {
						rows, copied = slices.Clone(rows), true
					}
					rows[i].Names = append(slices.Clip(rows[i].Names), c.Name)
				}
			}
		}
	}
	return rows
}

// hasPrefix reports whether name starts with one of prefixes.
func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// withTreePrefixed returns rows with the calls the tree ix makes that a
// prefix row matches as its names (sorted). A prefix names generated
// registration functions (register_trace_<event>() comes from a macro):
// a function the tree defines (register_trace_kprobe()) is none.
func withTreePrefixed(ix *index.Index, rows []Callback) []Callback {
	var prefixes []string
	for _, row := range rows {
		prefixes = append(prefixes, row.Prefix...)
	}
	if len(prefixes) == 0 || ix == nil {
		return rows
	}
	called := map[string]bool{}
	for _, site := range ix.CallsTo(func(callee string) bool { return hasPrefix(callee, prefixes) }) {
		if n := site.Call.Name; !called[n] && len(ix.Funcs(n)) == 0 {
			called[n] = true
		}
	}
	for i := range rows {
		if len(rows[i].Prefix) == 0 {
			continue
		}
		names := slices.Clone(rows[i].Names)
		for n := range called {
			if hasPrefix(n, rows[i].Prefix) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		rows[i].Names = names
	}
	return rows
}

// DeriveRows computes the callback rows with the registration wrappers
// over ix, the tree without a patch (Rows, and what Prepare stores).
func DeriveRows(ix *index.Index, id string, callbacks []Callback) []Callback {
	return New(Config{Index: ix, ID: id, Callbacks: callbacks}).deriveRows()
}

// deriveRows computes the callback rows with the registration wrappers.
func (t *Table) deriveRows() []Callback {
	t.rows = withTreePrefixed(t.ix, append([]Callback(nil), t.callbacks...))
	seen := map[string]bool{}
	for _, row := range t.rows {
		for _, n := range row.Names {
			seen[n] = true
		}
	}
	level := t.rows
	for depth := 0; depth < maxWrapperLevels && len(level) > 0; depth++ {
		var next []Callback
		for i := range level {
			row := &level[i]
			for _, n := range row.Names {
				next = append(next, t.wrappersOf(row, n, seen)...)
			}
		}
		if len(t.rows)+len(next) > maxWrapperRows {
			next = next[:maxWrapperRows-len(t.rows)]
		}
		t.rows = append(t.rows, next...)
		level = next
	}
	return t.rows
}

// wrappersOf returns the rows of the functions that pass one of their
// parameters to the callback argument of registration call name (of row).
func (t *Table) wrappersOf(row *Callback, name string, seen map[string]bool) []Callback {
	arg := row.Arg
	if a, ok := row.ArgOf[name]; ok {
		arg = a
	}
	var out []Callback
	for _, site := range t.ix.Callers(name) {
		c := site.Call
		if arg < 0 || arg >= len(c.Args) || seen[site.Func.Name] || row.file != "" && site.Func.File != row.file {
			continue
		}
		id := callbackName(c.Args[arg])
		if id == "" || strings.HasPrefix(strings.TrimSpace(c.Args[arg]), "&") || len(t.ix.Funcs(id)) > 0 {
			// A function named directly is a registration, not a
			// wrapper; "&x" is an object of the wrapper's own.
			continue
		}
		j := t.typ.ParamIndex(site.Func, id)
		if j < 0 {
			continue
		}
		seen[site.Func.Name] = true
		w := *row
		w.Names, w.Arg, w.ArgOf, w.Prefix = []string{site.Func.Name}, j, nil, nil
		w.Why = row.Why + " (" + site.Func.Name + "() passes its " + id + " to " + name + "())"
		if site.Func.Static && !strings.HasSuffix(site.Func.File, ".h") {
			w.file = site.Func.File
		}
		out = append(out, w)
	}
	return out
}

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

// maxWrapperRows bounds the registration wrappers derived per tree (the
// table's own rows not counted; Linux 6.1 yields some 135 wrappers).
const maxWrapperRows = 1024

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
		t.rows = t.withPatchPrefixed(append([]Callback(nil), t.callbacks...), func(n string) bool { return len(t.patch[n]) > 0 })
		return t.rows
	}
	t.rows = t.withPatchWrappers(t.withPatchPrefixed(t.treeRows(), func(n string) bool { return len(t.ix.Funcs(n)) > 0 }))
	return t.rows
}

// treeRows returns the rows of the tree without the patch (Rows of the
// tree's own view): derived once per model and tree, or read from what
// Prepare stored. Every table over the tree shares them.
func (t *Table) treeRows() []Callback {
	rows, _ := t.ix.Underlying().Memo("lockctx.wrappers."+t.id, func() any {
		if t.stored != nil {
			if rows, ok := t.stored(); ok {
				return rows
			}
		}
		return DeriveRows(t.ix.Underlying(), t.id, t.callbacks)
	}).([]Callback)
	return rows
}

// A prefix row (register_trace_ for register_trace_<event>()) names
// generated registration functions: its names are the calls that match
// it and that no function of the view defines (register_trace_kprobe() is
// one the tree defines, no tracepoint). The tree's are found once, by
// deriveRows (stored with the summaries); the patch's are added per
// view.

// withPatchPrefixed returns rows with the calls of the table's patch that
// a prefix row matches and defined does not hold for (a registration the
// tree does not make yet) added to its names.
func (t *Table) withPatchPrefixed(rows []Callback, defined func(string) bool) []Callback {
	prefixes := rowPrefixes(rows)
	if len(prefixes) == 0 {
		return rows
	}
	var called []string
	for _, fns := range t.patch {
		for _, fn := range fns {
			for _, c := range fn.Calls {
				if hasPrefix(c.Name, prefixes) && !defined(c.Name) {
					called = append(called, c.Name)
				}
			}
		}
	}
	return withPrefixed(rows, called)
}

// withTreePrefixed returns rows with the calls the tree ix makes that a
// prefix row matches, and that the tree does not define, as its names.
func withTreePrefixed(ix *index.Index, rows []Callback) []Callback {
	prefixes := rowPrefixes(rows)
	if len(prefixes) == 0 {
		return rows
	}
	var called []string
	for _, site := range ix.CallsTo(func(callee string) bool { return hasPrefix(callee, prefixes) }) {
		if len(ix.Funcs(site.Call.Name)) == 0 {
			called = append(called, site.Call.Name)
		}
	}
	return withPrefixed(rows, called)
}

// withPrefixed returns rows with the names of called that a prefix row
// matches added to its names, sorted; rows itself when it adds none, a
// copy otherwise (rows may be a tree's, shared by every view).
func withPrefixed(rows []Callback, called []string) []Callback {
	var out []Callback
	for i, row := range rows {
		var names []string
		for _, n := range called {
			if len(row.Prefix) > 0 && hasPrefix(n, row.Prefix) && !slices.Contains(row.Names, n) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(rows)
		}
		out[i].Names = slices.Sorted(slices.Values(append(slices.Clone(row.Names), names...)))
	}
	if out == nil {
		return rows
	}
	return out
}

// rowPrefixes returns the prefixes of rows.
func rowPrefixes(rows []Callback) []string {
	var out []string
	for _, row := range rows {
		out = append(out, row.Prefix...)
	}
	return out
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
	base := len(t.rows)
	mw := t.memberWrappers(seen)
	t.rows = append(t.rows, mw[:min(len(mw), maxWrapperRows)]...)
	level := t.rows
	for depth := 0; depth < maxWrapperLevels && len(level) > 0; depth++ {
		var next []Callback
		for i := range level {
			row := &level[i]
			for _, n := range row.Names {
				next = append(next, t.wrappersOf(row, n, seen)...)
			}
		}
		if len(t.rows)-base+len(next) > maxWrapperRows {
			next = next[:maxWrapperRows-(len(t.rows)-base)]
		}
		t.rows = append(t.rows, next...)
		level = next
	}
	return t.rows
}

// wrappersOf returns the rows of the functions that pass one of their
// parameters to the callback argument of registration call name (of row).
func (t *Table) wrappersOf(row *Callback, name string, seen map[string]bool) []Callback {
	var out []Callback
	for _, site := range t.ix.Callers(name) {
		if seen[site.Func.Name] {
			continue
		}
		if w, ok := t.wrapperRow(row, name, site.Func, site.Call); ok {
			seen[site.Func.Name] = true
			out = append(out, w)
		}
	}
	return out
}

// wrapperRow returns the row that makes fn a registration wrapper of row
// when its call c of registration name passes one of fn's parameters as
// the callback; ok is false otherwise.
func (t *Table) wrapperRow(row *Callback, name string, fn *cscan.Func, c cscan.Call) (Callback, bool) {
	arg := row.Arg
	if a, ok := row.ArgOf[name]; ok {
		arg = a
	}
	if arg < 0 || arg >= len(c.Args) || row.file != "" && fn.File != row.file || !row.ArgHas.holds(c.Args) {
		// A wrapper whose own call does not meet the row's argument
		// condition registers nothing by it.
		return Callback{}, false
	}
	id := CallbackName(c.Args[arg])
	if id == "" || strings.HasPrefix(strings.TrimSpace(c.Args[arg]), "&") {
		// "&x" is an object of the wrapper's own.
		return Callback{}, false
	}
	// A parameter of the wrapper hides any function of that name
	// elsewhere in the tree (a "handler" or "fn"); any other name is a
	// function registered directly, not a wrapper.
	j := t.typ.ParamIndex(fn, id)
	if j < 0 {
		return Callback{}, false
	}
	w := *row
	w.Names, w.Arg, w.ArgOf, w.Prefix, w.ArgHas, w.Param = []string{fn.Name}, j, nil, nil, ArgText{}, id
	w.Why = row.Why + " (" + fn.Name + "() passes its " + id + " to " + name + "())"
	// Its own linkage limits where it registers, not that of the static
	// helper it calls (register_fib_notifier() is called from drivers,
	// fib_dump_is_consistent() only from its file).
	w.file = ""
	if fn.Static && !strings.HasSuffix(fn.File, ".h") {
		w.file = fn.File
	}
	return w, true
}

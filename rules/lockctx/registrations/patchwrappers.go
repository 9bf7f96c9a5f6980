package registrations

import (
	"maps"
	"slices"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
)

// A patch can make a function a registration wrapper: fb_register_client()
// made to pass its notifier block to atomic_notifier_chain_register()
// instead of the blocking chain's. The tree's wrapper rows (DeriveRows)
// are derived once without the patch, so a view adds the rows of the
// patch's own functions that newly wrap a row, and of the functions that
// wrap those (to maxWrapperLevels); every call of them in the tree then
// registers in the view (overRegSet), in files the patch leaves alone
// too: backlight.c's fb_register_client(&bd->fb_notif) now puts its
// fb_notifier_callback() on an atomic chain.

// withPatchWrappers returns rows with the rows of the functions of the
// view's patch that pass one of their parameters to a registration call's
// callback argument and are no registration yet, and of their wrappers
// (kept in t.patchRows); rows itself when there are none.
func (t *Table) withPatchWrappers(rows []Callback) []Callback {
	t.patchRows, t.patchVia = t.patchWrappers(rows)
	if len(t.patchRows) == 0 {
		return rows
	}
	return append(slices.Clip(rows), t.patchRows...)
}

// patchWrappers returns the rows withPatchWrappers adds to rows and, by
// wrapper, the call it wraps.
func (t *Table) patchWrappers(rows []Callback) ([]Callback, map[string]string) {
	if len(t.patch) == 0 || t.ix == nil || len(t.ix.OverlaidPaths()) == 0 {
		return nil, nil
	}
	via := map[string]string{}
	seen := map[string]bool{}
	byName := map[string][]*Callback{}
	for i := range rows {
		for _, n := range rows[i].Names {
			seen[n] = true
			byName[n] = append(byName[n], &rows[i])
		}
	}
	var level []Callback
	for _, n := range slices.Sorted(maps.Keys(t.patch)) {
		if seen[n] {
			continue
		}
		for _, fn := range t.patch[n] {
			if w, call, ok := t.patchWrapperRow(fn, byName); ok && !seen[n] {
				seen[n] = true
				level = append(level, w)
				via[n] = call
			}
		}
	}
	out := level
	for depth := 1; depth < maxWrapperLevels && len(level) > 0; depth++ {
		var next []Callback
		for i := range level {
			for _, n := range level[i].Names {
				ws := t.wrappersOf(&level[i], n, seen)
				for _, w := range ws {
					via[w.Names[0]] = n
				}
				next = append(next, ws...)
			}
		}
		out = append(out, next...)
		level = next
	}
	return out, via
}

// patchWrapperRow returns the wrapper row of fn, a function of the patch,
// by its first call of a registration (byName: the rows naming it) that
// passes one of fn's parameters as the callback, and that call's name.
func (t *Table) patchWrapperRow(fn *cscan.Func, byName map[string][]*Callback) (Callback, string, bool) {
	if !t.ix.Overlaid(fn.File) {
		return Callback{}, "", false
	}
	for _, c := range fn.Calls {
		for _, row := range byName[c.Name] {
			if w, ok := t.wrapperRow(row, c.Name, fn, c); ok {
				return w, c.Name, true
			}
		}
	}
	return Callback{}, "", false
}

// patchWrapperSites returns the calls, in the files the patch leaves
// alone, of the wrappers the view's patch adds (t.patchRows, set by
// Rows): registrations the tree's registrations do not hold.
func (t *Table) patchWrapperSites() []index.CallSite {
	var out []index.CallSite
	for _, w := range t.patchRows {
		for _, n := range w.Names {
			for _, site := range t.ix.Callers(n) {
				if !t.ix.Overlaid(site.Func.File) {
					out = append(out, site)
				}
			}
		}
	}
	return out
}

// PatchWrapper reports whether the view's patch makes function name a
// registration wrapper (patchWrappers), and the call it wraps: the
// registration its own version of name calls, or the wrapper of one that
// name calls in the tree.
func (t *Table) PatchWrapper(name string) (via string, ok bool) {
	t.Rows()
	via, ok = t.patchVia[name]
	return via, ok
}

// Wraps reports whether fn (another version of a function, the one
// before the patch) passes one of its parameters to the callback
// argument of a call of registration via, as the view's rows read it.
func (t *Table) Wraps(fn *cscan.Func, via string) bool {
	rows := t.Rows()
	for i := range rows {
		if !slices.Contains(rows[i].Names, via) {
			continue
		}
		for _, c := range fn.Calls {
			if c.Name != via {
				continue
			}
			if _, ok := t.wrapperRow(&rows[i], via, fn, c); ok {
				return true
			}
		}
	}
	return false
}

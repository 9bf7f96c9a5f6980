package lockctx

import (
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Callers through function-like macros, for the reverse caller search.
//
// A driver often calls its own helpers through a macro that fills in an
// argument (ncr53c8xx's "#define __m_calloc(mp, s, n) __m_calloc2(mp, s,
// n, MEMO_WARN)", called under its spinlock by __m_calloc_dma()). The
// index records the call of the macro's name, so the callers of the
// function by name miss it. MacroCallers gives the macros whose body
// calls the function, parsed as functions, so that the caller search
// can step through them as through any caller, and MacroHome tells
// which macro a caller's call of that name is.

// MacroCallers returns the function-like macros defined in file, or, for
// a function other files may call (global), in the private headers file
// includes (privateHeaders), whose body calls name, each parsed as a function
// (its File is where it is defined), in the order of their files and
// names. Kernel-wide headers are not searched: their wrappers of a
// kernel API are table rows or their callers' own macro summaries.
func (r *Resolver) MacroCallers(name, file string, global bool) []*cscan.Func {
	if r.ix == nil || file == "" {
		return nil
	}
	files := []string{file}
	if global {
		files = append(files, r.privateHeaders(file, maxDefineDepth)...)
	}
	var out []*cscan.Func
	for _, f := range files {
		defs := r.fileMacros(f)
		names := make([]string, 0, len(defs))
		for n, d := range defs {
			if n != name && callsName(d.fn, name) {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		for _, n := range names {
			out = append(out, defs[n].fn)
		}
	}
	return out
}

// MacroHome returns the file defining the function-like macro name as a
// call in file resolves it (macroDefDeep: the file itself, its private
// headers, then its kernel-wide ones), and false when name is no such
// macro there.
func (r *Resolver) MacroHome(name, file string) (string, bool) {
	if r.ix == nil {
		return "", false
	}
	d, ok := r.macroDefDeep(name, file)
	if !ok {
		return "", false
	}
	return d.fn.File, true
}

// callsName reports whether fn makes a call to name.
func callsName(fn *cscan.Func, name string) bool {
	for _, c := range fn.Calls {
		if c.Name == name {
			return true
		}
	}
	return false
}

// MacroArgCallee returns the function call that the function-like macro
// name, as a call in file resolves it, hands its parameter arg to
// unchanged ("#define rtw_iterate_vifs_atomic(rtwdev, iterator, data)
// ieee80211_iterate_active_interfaces_atomic(rtwdev->hw, ...,
// iterator, data)"): the callee's name and the argument position there;
// false when name is no such macro or does not pass the parameter on.
func (r *Resolver) MacroArgCallee(name, file string, arg int) (string, int, bool) {
	if r.ix == nil {
		return "", 0, false
	}
	d, ok := r.macroDefDeep(name, file)
	if !ok || arg < 0 || arg >= len(d.params) || d.params[arg] == "" {
		return "", 0, false
	}
	p := d.params[arg]
	for _, c := range d.fn.Calls {
		for j, a := range c.Args {
			if strings.Trim(strings.TrimSpace(a), "()") == p {
				return c.Name, j, true
			}
		}
	}
	return "", 0, false
}

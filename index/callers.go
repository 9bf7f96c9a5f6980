package index

import (
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// MemberCallers returns every call site through a struct member named
// member ("dev->netdev_ops->ndo_get_stats64(...)" for "ndo_get_stats64"),
// ordered by file and line. The answer may be shared with other callers
// (and goroutines): it must not be modified.
func (ix *Index) MemberCallers(member string) []CallSite {
	b := ix.root()
	base := b.baseSites("m:"+member, func() []string { return b.st.callees(member) })
	return ix.viewSites(base, func(name string) bool {
		m, ok := cscan.CalleeMember(name)
		return ok && m == member
	})
}

// Callers returns every call site of name in the view (direct calls by
// name; calls through pointers are named by their expression). The
// answer may be shared with other callers (and goroutines): it must not
// be modified.
func (ix *Index) Callers(name string) []CallSite {
	b := ix.root()
	base := b.baseSites("c:"+name, func() []string { return []string{name} })
	return ix.viewSites(base, func(n string) bool { return n == name })
}

// baseSites returns the call sites of the base index b whose callee is one
// of names(), ordered by CallSiteLess. The answer is computed once per
// index under key (every patch's view shares it) and must not be
// modified.
func (b *Index) baseSites(key string, names func() []string) []CallSite {
	if v, ok := b.sites.Load(key); ok {
		return v.([]CallSite)
	}
	d := b.st.dir(secCallDir)
	var out []CallSite
	for _, name := range names() {
		if i := d.find(name); i >= 0 {
			out = b.appendBaseSites(out, i)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return CallSiteLess(out[i], out[j]) })
	v, _ := b.sites.LoadOrStore(key, out[:len(out):len(out)])
	return v.([]CallSite)
}

// viewSites returns the call sites of the view from base, the base index's
// sites of the same callees: without those in the files an overlay
// replaces, with the calls of its files whose callee matches. It returns
// base itself when the overlay changes nothing of it.
func (ix *Index) viewSites(base []CallSite, match func(string) bool) []CallSite {
	if len(ix.over) == 0 {
		return base
	}
	var out []CallSite
	for k, s := range base {
		if _, ok := ix.over[s.Func.File]; ok {
			if out == nil {
				out = append(make([]CallSite, 0, len(base)), base[:k]...)
			}
			continue
		}
		if out != nil {
			out = append(out, s)
		}
	}
	if out == nil {
		// Nothing replaced so far: an append below copies base.
		out = base[:len(base):len(base)]
	}
	n := len(out)
	out = ix.appendOverSites(out, match)
	if len(out) > n {
		sort.SliceStable(out, func(i, j int) bool { return CallSiteLess(out[i], out[j]) })
	}
	return out
}

// appendBaseSites appends the call sites of callee directory entry i of the
// underlying index, except those in files an overlay replaces.
func (ix *Index) appendBaseSites(out []CallSite, i int) []CallSite {
	b := ix.root()
	for _, r := range b.st.callRefsAt(i) {
		if len(ix.over) > 0 {
			if _, ok := ix.over[b.st.path(r.file)]; ok {
				continue
			}
		}
		fn := b.funcAt(r.file, r.fn)
		if fn == nil || r.call >= len(fn.Calls) {
			continue
		}
		out = append(out, CallSite{Func: fn, Call: fn.Calls[r.call]})
	}
	return out
}

// appendOverSites appends the matching calls of an overlay's files to out.
func (ix *Index) appendOverSites(out []CallSite, match func(string) bool) []CallSite {
	for _, f := range ix.over {
		if f == nil {
			continue
		}
		for _, fn := range f.Funcs {
			for _, c := range fn.Calls {
				if match(c.Name) {
					out = append(out, CallSite{Func: fn, Call: c})
				}
			}
		}
	}
	return out
}

// CallSiteLess orders call sites as CallsTo and Callers return them: by
// file, line, then the calling function's first line.
func CallSiteLess(a, c CallSite) bool {
	if a.Func.File != c.Func.File {
		return a.Func.File < c.Func.File
	}
	if a.Call.Line != c.Call.Line {
		return a.Call.Line < c.Call.Line
	}
	return a.Func.Start < c.Func.Start
}

// CallsTo returns every call site whose callee name matches, ordered by
// file and line. It reads every callee name of the tree and decodes only
// the files with a matching call.
func (ix *Index) CallsTo(match func(callee string) bool) []CallSite {
	b := ix.root()
	d := b.st.dir(secCallDir)
	var out []CallSite
	for i := 0; i < d.len(); i++ {
		if match(d.nameString(i)) {
			out = ix.appendBaseSites(out, i)
		}
	}
	out = ix.appendOverSites(out, match)
	sort.SliceStable(out, func(i, j int) bool { return CallSiteLess(out[i], out[j]) })
	return out
}

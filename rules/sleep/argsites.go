package sleep

import (
	"path"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/par"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
)

// argSites returns the calls that pass function name (of file) by name to
// a function calling that parameter ("intel_gvt_for_each_tracked_mmio(gvt,
// mmio_diff_handler, &param)"): the function runs in the context of such
// a call. A static function is looked for in its own file, a global one
// also in the other files of its directory (callbacks are rarely passed
// by name further away).
func (r *checker) argSites(name, file string, static bool) []callSite {
	var out []callSite
	for _, u := range r.argUsesNaming(name, file, static) {
		g := r.p.Index.Full(u.callee)
		steps, ok := r.newR.ParamCalled(g, u.arg)
		if !ok {
			continue
		}
		via := append([]report.Step(nil), steps...)
		last := via[len(via)-1]
		last.What += ": " + name + "()"
		via[len(via)-1] = last
		out = append(out, callSite{caller: u.fn, call: u.fn.Calls[u.call].Name, via: via, inner: r.newR.ParamCallHeld(g, u.arg)})
	}
	return out
}

// setterAssigns returns the member stores function name (of file) gets
// by being passed by name to a setter (lockctx.Resolver.SetterStores:
// "foo_set_callback(f, bar_cb, NULL)" with "f->cb = cb;" in
// foo_set_callback()): each is an assignment of name to that member,
// made at the setter's call.
func (r *checker) setterAssigns(name, file string, static bool) []index.Assign {
	var out []index.Assign
	for _, u := range r.argUsesNaming(name, file, static) {
		for _, a := range r.newR.SetterStores(u.callee, u.arg) {
			a.Func, a.File, a.Line = name, u.fn.File, u.fn.Calls[u.call].Line
			out = append(out, a)
		}
	}
	return out
}

// calleeArgUse is an argument use with the one function its call calls.
type calleeArgUse struct {
	argUse
	callee *cscan.Func
}

// argUsesNaming returns the arguments that pass function name (of file)
// by name to a direct call of a function the view defines once: in
// name's own file, and for a global function also in the other files of
// its directory (callbacks are rarely passed by name further away).
func (r *checker) argUsesNaming(name, file string, static bool) []calleeArgUse {
	files := []string{file}
	if !static {
		files = append(files, r.dirFiles(path.Dir(file))...)
	}
	r.readFiles(files, name)
	var out []calleeArgUse
	seen := map[string]bool{}
	for _, p := range files {
		// A file that does not spell the name cannot pass it: its
		// functions are not decoded.
		if seen[p] || !r.spells(p, name) {
			continue
		}
		seen[p] = true
		for _, u := range r.argUsesOf(p)[name] {
			callee := u.fn.Calls[u.call].Name
			defs := cscan.PickDefs(r.p.Index.Funcs(callee), u.fn.File)
			if len(defs) == 0 {
				// A macro of the driver that hands the function on
				// to the walker (rtw_iterate_vifs_atomic()).
				if real, k, ok := r.newR.MacroArgCallee(callee, u.fn.File, u.arg); ok {
					defs = cscan.PickDefs(r.p.Index.Funcs(real), u.fn.File)
					u.arg = k
				}
			}
			if len(defs) == 1 {
				out = append(out, calleeArgUse{u, defs[0]})
			}
		}
	}
	return out
}

// argUse is argument arg of call call of fn.
type argUse struct {
	fn        *cscan.Func
	call, arg int
}

// argUsesOf returns the arguments of the direct calls (not through a
// member) of file p of the view by the function they may name: "name" and
// "&name" under name, in the order of the file's functions, calls and
// arguments; read once per patch.
func (r *checker) argUsesOf(p string) map[string][]argUse {
	if r.argUses == nil {
		r.argUses = map[string]map[string][]argUse{}
	}
	if uses, ok := r.argUses[p]; ok {
		return uses
	}
	uses := r.readArgUses(p)
	r.argUses[p] = uses
	return uses
}

// readArgUses is argUsesOf without the cache: a read of the view, safe to
// run concurrently.
func (r *checker) readArgUses(p string) map[string][]argUse {
	uses := map[string][]argUse{}
	if f := r.p.Index.File(p); f != nil {
		for _, fn := range f.Funcs {
			for ci, c := range fn.Calls {
				if strings.ContainsAny(c.Name, ">.") {
					continue
				}
				for i, a := range c.Args {
					a = strings.TrimSpace(a)
					u := argUse{fn, ci, i}
					uses[a] = append(uses[a], u)
					if n, ok := strings.CutPrefix(a, "&"); ok {
						uses[n] = append(uses[n], u)
					}
				}
			}
		}
	}
	return uses
}

// dirFiles returns the C files of a directory of the tree (not its
// subdirectories).
func (r *checker) dirFiles(dir string) []string {
	if r.dirs == nil {
		r.dirs = map[string][]string{}
	}
	if fs, ok := r.dirs[dir]; ok {
		return fs
	}
	paths := r.newR.TreePaths()
	prefix := dir + "/"
	i := sort.SearchStrings(paths, prefix)
	var out []string
	for ; i < len(paths) && strings.HasPrefix(paths[i], prefix); i++ {
		rest := paths[i][len(prefix):]
		if !strings.Contains(rest, "/") && strings.HasSuffix(rest, ".c") {
			out = append(out, paths[i])
		}
	}
	r.dirs[dir] = out
	return out
}

// spells reports whether file p of the view spells name as a word (true
// when it cannot be read). The identifiers of each file are read once per
// patch (once per tree index for a file the patch leaves alone): the
// reverse search asks for many names in the same directory.
func (r *checker) spells(p, name string) bool {
	if r.words == nil {
		r.words = map[string]ctype.WordSet{}
	}
	ws, ok := r.words[p]
	if !ok {
		ws = r.wordsOf(p)
		r.words[p] = ws
	}
	return spelled(ws, name)
}

// spelled reports whether a file whose identifiers are ws spells name
// (true when it could not be read).
func spelled(ws ctype.WordSet, name string) bool { return !ws.Read() || ws.Has(name) }

// wordsOf returns the identifiers file p of the view spells (spells,
// without the patch's cache): a read of the view, safe to run
// concurrently.
func (r *checker) wordsOf(p string) ctype.WordSet {
	read := func() ctype.WordSet {
		// Words keeps hashes only: the file is read into a reused
		// buffer.
		var ws ctype.WordSet
		r.p.Index.WithSource(p, func(src []byte) { ws = ctype.Words(src) })
		return ws
	}
	if r.p.Index.Overlaid(p) {
		return read()
	}
	// A file of the tree: the same for every patch.
	return r.p.Index.Underlying().Memo("rules/sleep:words:"+p, func() any { return read() }).(ctype.WordSet)
}

// readFiles reads, on the machine's cores, what argSites will ask of the
// files it searches for name and that the patch has not read yet: their
// identifiers, and the arguments of the calls of those that spell name.
// Both are pure reads of the view (the index's caches take concurrent
// readers), filled into the patch's caches in the files' order, so the
// search that follows finds them there and goes as it would without:
// the reverse search meets a directory's files in bulk, and one patch's
// rules otherwise use one core.
func (r *checker) readFiles(files []string, name string) {
	if r.words == nil {
		r.words = map[string]ctype.WordSet{}
	}
	if r.argUses == nil {
		r.argUses = map[string]map[string][]argUse{}
	}
	// A file is read for what is missing: its identifiers, unless an
	// earlier name's search read them, and its call arguments when it
	// spells name.
	var todo []string
	seen := map[string]bool{}
	for _, p := range files {
		ws, read := r.words[p]
		_, used := r.argUses[p]
		if !seen[p] && (!read || !used && spelled(ws, name)) {
			seen[p] = true
			todo = append(todo, p)
		}
	}
	if len(todo) < 2 {
		return
	}
	type result struct {
		ws   ctype.WordSet
		uses map[string][]argUse
	}
	out := make([]result, len(todo))
	par.Each(len(todo), func(i int) {
		p := todo[i]
		ws, read := r.words[p]
		if !read {
			ws = r.wordsOf(p)
		}
		out[i].ws = ws
		if _, used := r.argUses[p]; !used && spelled(ws, name) {
			out[i].uses = r.readArgUses(p)
		}
	})
	for i, p := range todo {
		r.words[p] = out[i].ws
		if out[i].uses != nil {
			r.argUses[p] = out[i].uses
		}
	}
}

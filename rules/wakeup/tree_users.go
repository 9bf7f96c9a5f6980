package wakeup

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// treeCall is one call of a wait-queue primitive in the tree.
type treeCall struct {
	Func *cscan.Func
	Call cscan.Call
}

// treeView gives the rule the users of a queue in the post-patch tree,
// outside the functions the patch touches (those come from the patch).
type treeView struct {
	r      *checker
	loaded bool
	// base are the primitive calls of the base tree, over those of the
	// files the overlay rescanned (nil without an overlay).
	base, over *primSiteSet
	files      map[string]*treeFile
	funcs      map[*cscan.Func]*wfunc
	byKey      map[string][]*wsite
	// spells caches fileSpells.
	spells map[string]bool
}

type treeFile struct {
	// lines is the file by lines (its text shared with the index, not a
	// copy); empty when it cannot be read.
	lines   typing.Lines
	vt      *varTypes
	scanned bool
	// parse is the file's functions, parsed on demand (parsed).
	parse *cscan.File
	// globals are the variables declared at file scope (globalstore.go),
	// found on demand.
	globals map[string]bool
}

func newTreeView(r *checker) *treeView {
	return &treeView{r: r, files: map[string]*treeFile{}, funcs: map[*cscan.Func]*wfunc{}, byKey: map[string][]*wsite{}, spells: map[string]bool{}}
}

// read returns the post-patch text of tree file rel, a C source or
// header: the pass's index overlays the patched sources on the checkout
// it indexed (whose lines its functions' lines are), and shares the text
// of the files it reads from disk with the other analyses over it.
func (t *treeView) read(rel string) (string, error) {
	return t.r.pass.Index.Text(rel)
}

// relPath returns a tree-relative path for a scanned file path.
func (t *treeView) relPath(p string) string {
	if root := t.r.pass.Index.Root; root != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(strings.TrimPrefix(p, "./"))
}

// file reads and scans one tree file (post-patch when the change set has a
// patched tree view).
func (t *treeView) file(rel string) *treeFile {
	if f, ok := t.files[rel]; ok {
		return f
	}
	f := &treeFile{vt: newVarTypes()}
	t.files[rel] = f
	text, err := t.read(rel)
	if err != nil || len(text) > diffcheck.MaxTreeFileSize {
		return f
	}
	f.lines = typing.NewLines(text)
	return f
}

// parsed returns the functions of post-patch tree file rel, parsed once;
// nil when it cannot be read.
func (t *treeView) parsed(rel string) *cscan.File {
	f := t.file(rel)
	if f.parse == nil && f.lines.Len() > 0 {
		f.parse = cscan.ParseFile(rel, []byte(f.lines.Text()))
	}
	return f.parse
}

// scanFile records a tree file's declarations, once.
func (t *treeView) scanFile(f *treeFile) {
	if f.scanned {
		return
	}
	f.scanned = true
	f.vt.scan(f.lines.Text())
}

// view builds (once) the wait-queue view of a tree function.
func (t *treeView) view(fn *cscan.Func) *wfunc {
	if w, ok := t.funcs[fn]; ok {
		return w
	}
	rel := t.relPath(fn.File)
	tf := t.file(rel)
	w := &wfunc{File: rel, Name: fn.Name, Side: ' ', F: fn, lines: map[int]string{}}
	var body strings.Builder
	for l := fn.Start; l <= fn.End && l >= 1 && l <= tf.lines.Len(); l++ {
		t := tf.lines.Line(l - 1)
		w.lines[l] = t
		body.WriteString(t)
		body.WriteByte('\n')
	}
	vt := newVarTypes()
	vt.scan(body.String())
	t.r.p.sitesOf(w, vt)
	t.r.canonSites(w)
	for _, s := range w.Sites {
		if strings.HasPrefix(keyKindSplit(s.Q)[1], "*.") {
			// A variable declared outside the function: use the
			// file's declarations (scanned once, on demand).
			t.scanFile(tf)
			vt.fallback(tf.vt)
			vt.fallback(t.r.patchVT)
			w.Sites = nil
			t.r.p.sitesOf(w, vt)
			t.r.canonSites(w)
			break
		}
	}
	t.funcs[fn] = w
	return w
}

// sitesOn returns the tree's wait-queue sites on queue q outside the
// patch's functions.
func (t *treeView) sitesOn(q string) []*wsite {
	if s, ok := t.byKey[q]; ok {
		return s
	}
	plain := q
	for _, p := range []string{"var:", "completion:", "bit:"} {
		plain = strings.TrimPrefix(plain, p)
	}
	last := strings.TrimSuffix(strings.TrimSuffix(keyLast(plain), "()"), "[]")
	need := pathWords(plain)
	var out []*wsite
	seen := map[*wsite]bool{}
	visit := func(c treeCall, spelt bool) {
		if c.Func == nil || t.r.inPatch[t.relPath(c.Func.File)+":"+c.Func.Name] || !spelt && !t.mayKey(c, need) {
			return
		}
		w := t.view(c.Func)
		// A hashed-queue lookup (wq = bit_waitqueue(&x->word, 0)) names
		// the queue that the function's later sites reach through wq.
		hashed := hashedQueues[c.Call.Name] != ""
		for _, s := range w.Sites {
			if (hashed || s.Line() == c.Call.Line && s.Call.Name == c.Call.Name) && !seen[s] && (s.Q == q || viaPointerField(s.Q, q)) {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	t.eachCallOn(last, func(c treeCall) { visit(c, false) })
	// A queue reached through an accessor (rcuwait_wait_event(
	// kvm_arch_vcpu_get_wait(vcpu), ...)) is spelt by the accessor's name:
	// the calls on the accessors whose key is q (found by canonKey) are
	// on q whatever their argument.
	for _, name := range t.r.accessorsOf(q) {
		t.eachCallOn(name, func(c treeCall) { visit(c, true) })
	}
	t.byKey[q] = out
	return out
}

// eachCallOn calls visit with every primitive call of the tree that has
// identifier w in its arguments: the base tree's, except in files the
// overlay rescanned, then the overlay's.
func (t *treeView) eachCallOn(w string, visit func(treeCall)) {
	if !t.loaded {
		t.loaded = true
		t.base, t.over = t.r.primSites(t.r.pass.Index)
	}
	overlay := t.over != nil
	for _, c := range t.base.on(w) {
		if overlay && t.r.pass.Index.Overlaid(c.Func.File) {
			continue // rescanned: taken from the overlay below
		}
		visit(c)
	}
	if overlay {
		for _, c := range t.over.on(w) {
			visit(c)
		}
	}
}

// pathWords returns the identifiers of the member path of a queue key
// ("cmd_wait_q", "wait" of "mwifiex_adapter.cmd_wait_q.wait"): a call
// whose queue argument is a member expression has a key with that path
// only when the argument spells them all (queueKey takes the path from
// the argument's text; only the part before it comes from declarations).
// Nil for a key without a member path.
func pathWords(key string) []string {
	i := strings.IndexByte(key, '.')
	if i < 0 || strings.HasSuffix(key, "()") {
		return nil
	}
	return identWords(key[i+1:])
}

// mayKey reports whether call c can have a queue key with member path
// words need: one of its arguments spells them all, or is a plain name
// that may alias a member expression (see queueKey): through an alias
// the patch declares, or one its file spells (the function's own
// declarations, or the file's, read when a key of the function is
// "*.path").
func (t *treeView) mayKey(c treeCall, need []string) bool {
	if len(need) == 0 {
		return true
	}
	for _, a := range c.Call.Args {
		if plain := stripAddr(a); identRe.MatchString(plain) {
			if _, ok := t.r.patchVT.aliases[plain]; ok || t.fileSpells(c.Func.File, need) {
				return true
			}
			continue
		}
		if spellsAll(identWords(a), need) {
			return true
		}
	}
	return false
}

// fileSpells reports whether the file of path holds every word of need
// (as text: a filter; true when it cannot be read).
func (t *treeView) fileSpells(path string, need []string) bool {
	rel := t.relPath(path)
	key := rel + "|" + strings.Join(need, ".")
	if v, ok := t.spells[key]; ok {
		return v
	}
	text, err := t.read(rel)
	v := true
	if err == nil {
		for _, w := range need {
			if !strings.Contains(text, w) {
				v = false
				break
			}
		}
	}
	t.spells[key] = v
	return v
}

// spellsAll reports whether words holds every word of need.
func spellsAll(words, need []string) bool {
	for _, w := range need {
		if !slices.Contains(words, w) {
			return false
		}
	}
	return true
}

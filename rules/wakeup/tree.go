package wakeup

import (
	"path/filepath"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/diffcheck"
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
}

type treeFile struct {
	lines   []string
	vt      *varTypes
	scanned bool
}

func newTreeView(r *checker) *treeView {
	return &treeView{r: r, files: map[string]*treeFile{}, funcs: map[*cscan.Func]*wfunc{}, byKey: map[string][]*wsite{}}
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
	var b []byte
	var err error
	if tr := t.r.pass.Change.Tree; tr != nil {
		b, err = tr.ReadFile(rel)
	} else {
		b, err = t.r.pass.Index.ReadFile(rel)
	}
	if err != nil || len(b) > diffcheck.MaxTreeFileSize {
		return f
	}
	f.lines = strings.Split(string(b), "\n")
	return f
}

// scanFile records a tree file's declarations, once.
func (t *treeView) scanFile(f *treeFile) {
	if f.scanned {
		return
	}
	f.scanned = true
	f.vt.scan(strings.Join(f.lines, "\n"))
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
	for l := fn.Start; l <= fn.End && l >= 1 && l <= len(tf.lines); l++ {
		w.lines[l] = tf.lines[l-1]
		body.WriteString(tf.lines[l-1])
		body.WriteByte('\n')
	}
	vt := newVarTypes()
	vt.scan(body.String())
	t.r.p.sitesOf(w, vt)
	for _, s := range w.Sites {
		if strings.HasPrefix(s.Q, "*.") {
			// A variable declared outside the function: use the
			// file's declarations (scanned once, on demand).
			t.scanFile(tf)
			vt.fallback(tf.vt)
			vt.fallback(t.r.patchVT)
			w.Sites = nil
			t.r.p.sitesOf(w, vt)
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
	if !t.loaded {
		t.loaded = true
		t.base, t.over = t.r.primSites(t.r.pass.Index)
	}
	plain := q
	for _, p := range []string{"var:", "completion:"} {
		plain = strings.TrimPrefix(plain, p)
	}
	last := strings.TrimSuffix(strings.TrimSuffix(keyLast(plain), "()"), "[]")
	var out []*wsite
	seen := map[*wsite]bool{}
	visit := func(c treeCall) {
		if c.Func == nil || t.r.inPatch[t.relPath(c.Func.File)+":"+c.Func.Name] {
			return
		}
		w := t.view(c.Func)
		for _, s := range w.Sites {
			if s.Line() == c.Call.Line && s.Call.Name == c.Call.Name && !seen[s] && s.Q == q {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	overlay := t.over != nil
	for _, c := range t.base.on(last) {
		if overlay && t.r.pass.Index.Overlaid(c.Func.File) {
			continue // rescanned: taken from the overlay below
		}
		visit(c)
	}
	if overlay {
		for _, c := range t.over.on(last) {
			visit(c)
		}
	}
	t.byKey[q] = out
	return out
}

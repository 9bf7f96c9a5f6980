package index

import (
	"crypto/sha1"
	"encoding/hex"
	"path/filepath"
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Ref names one function of a base index's store: the number of its file
// in the store's file table and its position in that file. Refs are stable
// while the store is (see Generation); an overlay's rescanned functions
// have none. Rules use them to key what they persist per function (side.go).
type Ref uint64

// refFileShift leaves 2^20 functions per file.
const refFileShift = 20

// MakeRef returns the ref of function pos of file number file.
func MakeRef(file, pos int) Ref { return Ref(uint64(file)<<refFileShift | uint64(pos)) }

// File returns the file number of r.
func (r Ref) File() int { return int(uint64(r) >> refFileShift) }

// Pos returns the position of r's function in its file.
func (r Ref) Pos() int { return int(uint64(r) & (1<<refFileShift - 1)) }

// RefOf returns the ref of fn when it was decoded from the underlying
// index's store (and not released since).
func (ix *Index) RefOf(fn *cscan.Func) (Ref, bool) {
	v, ok := ix.root().refs.Load(fn)
	if !ok {
		return 0, false
	}
	return v.(Ref), true
}

// FuncOf returns the function r names in the underlying index (nil when
// out of range): the same value every query returns for it.
func (ix *Index) FuncOf(r Ref) *cscan.Func {
	return ix.root().funcAt(r.File(), r.Pos())
}

// FuncLines returns the lines of the function r names in the underlying
// index (FuncOf's Start and End) by decoding only them: for a pass over
// every function of the tree that needs no more, without decoding and
// keeping each function. ok is false when r is out of range or damaged.
func (ix *Index) FuncLines(r Ref) (start, end int, ok bool) {
	b := ix.root()
	i := r.File()
	if b.st == nil || i < 0 || i >= b.st.nFiles {
		return 0, 0, false
	}
	span := funcSpan(b.st.record(i), r.Pos())
	if span == nil {
		return 0, 0, false
	}
	d := &decoder{b: span, strs: &b.st.strs}
	d.skipS() // name
	d.skipS() // macro
	start, _, end = d.lines()
	return start, end, d.err == nil
}

// NumFiles returns the number of files of the underlying index's store.
func (ix *Index) NumFiles() int { return len(ix.root().decoded) }

// FileNum returns the number of path in the underlying index's store.
func (ix *Index) FileNum(path string) (int, bool) {
	b := ix.root()
	if b.st == nil {
		return 0, false
	}
	i := b.st.findFile(path)
	return i, i >= 0
}

// FileRefs returns the refs of the functions of file number i, in file
// order (reading only the record's header).
func (ix *Index) FileRefs(i int) []Ref {
	c := ix.root().cacheOf(i)
	if c == nil {
		return nil
	}
	out := make([]Ref, len(c.funcs))
	for j := range out {
		out[j] = MakeRef(i, j)
	}
	return out
}

// OverlaidPaths returns the paths an overlay rescanned (deleted files
// included), sorted; nil for a base index.
func (ix *Index) OverlaidPaths() []string {
	out := make([]string, 0, len(ix.over))
	for p := range ix.over {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ChangedAssigns returns the member assignments of the files an overlay
// rescanned as they were in the tree under it (before) and as they are
// now (after): what may make a member's assignments differ between the
// two views. Nil for a base index.
func (ix *Index) ChangedAssigns() (before, after []Assign) {
	if ix.base == nil {
		return nil, nil
	}
	b := ix.root()
	for _, p := range ix.OverlaidPaths() {
		if src := ix.src[p]; src != nil {
			after = append(after, ScanAssigns(p, src)...)
		}
		if old, err := b.ReadFile(p); err == nil {
			before = append(before, ScanAssigns(p, old)...)
		}
	}
	return before, after
}

// Generation identifies the content of the underlying index: it changes
// whenever a file is added, removed or changed, and with the store
// version. What is persisted by Ref is valid for one generation only.
func (ix *Index) Generation() string { return ix.root().gen }

// CacheDir returns the directory of the underlying index's store, "" when
// it is not persisted.
func (ix *Index) CacheDir() string {
	f := ix.root().Stats.CacheFile
	if f == "" {
		return ""
	}
	return filepath.Dir(f)
}

// entriesDigest is the generation of a store holding entries.
func entriesDigest(entries []fileEntry) string {
	h := sha1.New()
	var v [8]byte
	for i := range v {
		v[i] = byte(uint64(storeVersion) >> (8 * i))
	}
	h.Write(v[:])
	for _, e := range entries {
		h.Write([]byte(e.path))
		h.Write([]byte{0})
		h.Write([]byte(e.key))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

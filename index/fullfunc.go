package index

import (
	"bytes"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// fullFunc returns fn, a function decoded from b's store, with its
// statement tree, parsed from the lines of its file between the closing
// brace of the function before it and its own: a caller's body costs the
// parse of that function, not of its whole file. The parse is kept only
// when it scans fn exactly as the store holds it (its lines, calls and
// returns); nil when it does not, when fn is not from the store, or when
// its file is re-parsed whole already (Full falls back on the whole file).
func (b *Index) fullFunc(fn *cscan.Func) *cscan.Func {
	v, ok := b.refs.Load(fn)
	if !ok {
		return nil
	}
	ref := v.(Ref)
	key := fn.File + "\x00" + strconv.Itoa(ref.Pos())
	b.mu.Lock()
	if f, ok := b.full.get(key); ok {
		b.mu.Unlock()
		return f.Funcs[0]
	}
	_, whole := b.full.get(fn.File)
	b.mu.Unlock()
	if whole {
		return nil
	}
	first := 1
	if ref.Pos() > 0 {
		_, end, ok := b.FuncLines(MakeRef(ref.File(), ref.Pos()-1))
		if !ok || end > fn.Start {
			return nil
		}
		first = end
	}
	var g *cscan.Func
	size := 0
	err := readScratch(filepath.Join(b.Root, fn.File), func(src []byte) {
		part, ok := lineRange(src, first, fn.End)
		if !ok {
			return
		}
		size = len(part)
		// The parse copies what it keeps of part (names, argument texts).
		for _, h := range cscan.ParseFileFrom(fn.File, part, first).Funcs {
			if h.Name == fn.Name && h.Start == fn.Start {
				g = h
				break
			}
		}
	})
	if err != nil || g == nil || !sameScan(g, fn) {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.full.put(key, &cscan.File{Path: fn.File, Funcs: []*cscan.Func{g}}, int64(size)).Funcs[0]
}

// lineRange returns lines first to last (1-based, with last's line end)
// of src; ok is false when src has fewer lines.
func lineRange(src []byte, first, last int) ([]byte, bool) {
	if first < 1 || last < first {
		return nil, false
	}
	start := 0
	for l := 1; l < first; l++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return nil, false
		}
		start += i + 1
	}
	end := start
	for l := first; l <= last; l++ {
		i := bytes.IndexByte(src[end:], '\n')
		if i < 0 {
			if l < last || end == len(src) {
				return nil, false
			}
			end = len(src)
			break
		}
		end += i + 1
	}
	return src[start:end], true
}

// sameScan reports whether g, parsed with its body, scans as f, a function
// of the store: the same header, lines, calls and returns.
func sameScan(g, f *cscan.Func) bool {
	if g.Name != f.Name || g.Macro != f.Macro || g.File != f.File || g.Start != f.Start ||
		g.BodyStart != f.BodyStart || g.End != f.End || g.Static != f.Static || g.Inline != f.Inline {
		return false
	}
	return slices.EqualFunc(g.Calls, f.Calls, func(a, c cscan.Call) bool {
		return a.Name == c.Name && a.Line == c.Line && slices.Equal(a.Args, c.Args) && slices.Equal(a.Guards, c.Guards)
	}) && slices.EqualFunc(g.Returns, f.Returns, func(a, c cscan.Return) bool {
		return a.Line == c.Line && a.Expr == c.Expr && slices.Equal(a.Guards, c.Guards)
	})
}

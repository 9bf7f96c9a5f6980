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
	start, ok := skipLines(src, 0, first-1)
	if !ok || start == len(src) {
		return nil, false
	}
	end, ok := skipLines(src, start, last-first+1)
	if !ok {
		// The last line has no line end.
		if end, ok = skipLines(src, start, last-first); !ok || end == len(src) {
			return nil, false
		}
		end = len(src)
	}
	return src[start:end], true
}

// skipLines returns the offset just past the n-th line end of src from
// off; ok is false when there are fewer (the offset is then len(src)).
// Whole blocks are counted before they are searched.
func skipLines(src []byte, off, n int) (int, bool) {
	const block = 4096
	for n > 0 {
		if off == len(src) {
			return off, false
		}
		b := src[off:min(off+block, len(src))]
		if c := bytes.Count(b, []byte{'\n'}); c < n {
			n -= c
			off += len(b)
			continue
		}
		for ; n > 0; n-- {
			off += bytes.IndexByte(src[off:], '\n') + 1
		}
	}
	return off, true
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

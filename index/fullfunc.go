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
	parse := func(part []byte) {
		size = len(part)
		// The parse copies what it keeps of part (names, argument texts).
		for _, h := range cscan.ParseFileFrom(fn.File, part, first).Funcs {
			if h.Name == fn.Name && h.Start == fn.Start {
				g = h
				break
			}
		}
	}
	name := filepath.Join(b.Root, fn.File)
	var err error
	if lines := b.linesOf(fn.File); lines != nil {
		// The file was read before: only the function's lines are.
		if a, e, ok := lines.span(first, fn.End); ok {
			err = readScratchAt(name, int64(a), e-a, parse)
		}
	} else {
		err = readScratch(name, func(src []byte) {
			lines := newLineIndex(src)
			b.mu.Lock()
			b.lines.put(fn.File, lines)
			b.mu.Unlock()
			if a, e, ok := lines.span(first, fn.End); ok {
				parse(src[a:e])
			}
		})
	}
	if err != nil || g == nil || !sameScan(g, fn) {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.full.put(key, &cscan.File{Path: fn.File, Funcs: []*cscan.Func{g}}, int64(size)).Funcs[0]
}

// linesOf returns the line index of a file of b read before, nil when
// there is none.
func (b *Index) linesOf(path string) *lineIndex {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lines.byPath[path]
}

// lineIndex holds where the lines of a file start, and its size.
type lineIndex struct {
	// starts holds 0 and the offset after every line end.
	starts []int32
	size   int
}

// newLineIndex indexes the lines of src.
func newLineIndex(src []byte) *lineIndex {
	li := &lineIndex{starts: make([]int32, 1, 1+bytes.Count(src, []byte{'\n'})), size: len(src)}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		li.starts = append(li.starts, int32(i))
	}
	return li
}

// span returns the offsets of lines first to last (1-based, with last's
// line end); ok is false when the file has fewer lines.
func (li *lineIndex) span(first, last int) (start, end int, ok bool) {
	n := len(li.starts) // line ends + 1
	if first < 1 || last < first || first > n {
		return 0, 0, false
	}
	start = int(li.starts[first-1])
	switch {
	case start == li.size:
		return 0, 0, false
	case last < n:
		return start, int(li.starts[last]), true
	case last == n && int(li.starts[n-1]) < li.size:
		// The last line, without a line end.
		return start, li.size, true
	}
	return 0, 0, false
}

// maxLineStarts bounds the line offsets kept (lineCache).
const maxLineStarts = 4 << 20

// lineCache keeps the line indexes of files read by fullFunc, up to
// maxLineStarts offsets (then it starts again empty). The zero value is
// empty; the Index's mutex guards it.
type lineCache struct {
	byPath map[string]*lineIndex
	n      int
}

// put keeps li as the line index of path.
func (c *lineCache) put(path string, li *lineIndex) {
	if c.n+len(li.starts) > maxLineStarts {
		*c = lineCache{}
	}
	if c.byPath == nil {
		c.byPath = map[string]*lineIndex{}
	}
	if old, ok := c.byPath[path]; ok {
		c.n -= len(old.starts)
	}
	c.byPath[path] = li
	c.n += len(li.starts)
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

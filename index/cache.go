package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// The cache file: magic, format version, a string table, then one record per
// file content key. Records are decoded lazily and in parallel; strings are
// shared between records, so a call name is stored (and allocated) once.
const cacheMagic = "autosel-bot index\x00"

// cacheVersion changes whenever the encoding or the scanner's output does.
const cacheVersion = 1 + cscan.Version*1000

// cacheData is a loaded cache file.
type cacheData struct {
	strs    []string
	records map[string][]byte // content key -> encoded cscan.File
	entries int
}

func readCache(path string) (*cacheData, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := &decoder{b: b}
	if len(b) < len(cacheMagic) || string(b[:len(cacheMagic)]) != cacheMagic {
		return nil, fmt.Errorf("%s: not an index cache", path)
	}
	d.pos = len(cacheMagic)
	if v := d.u(); v != cacheVersion {
		return nil, fmt.Errorf("%s: cache version %d, want %d", path, v, cacheVersion)
	}
	n := d.u()
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("%s: corrupt string table", path)
	}
	c := &cacheData{strs: make([]string, n)}
	// The table is "len bytes" pairs; one string conversion of the whole
	// region lets every entry share its memory (one allocation).
	type span struct{ a, b int }
	spans := make([]span, n)
	start := d.pos
	for i := range spans {
		l := int(d.u())
		if d.err != nil || l < 0 || d.pos+l > len(b) {
			return nil, fmt.Errorf("%s: corrupt string table", path)
		}
		spans[i] = span{d.pos - start, d.pos - start + l}
		d.pos += l
	}
	region := string(b[start:d.pos])
	for i, sp := range spans {
		c.strs[i] = region[sp.a:sp.b]
	}
	ne := d.u()
	if ne > uint64(len(b)) {
		return nil, fmt.Errorf("%s: corrupt record table", path)
	}
	c.records = make(map[string][]byte, ne)
	for i := uint64(0); i < ne; i++ {
		k := d.u()
		l := int(d.u())
		if d.err != nil || k >= uint64(len(c.strs)) || l < 0 || d.pos+l > len(b) {
			return nil, fmt.Errorf("%s: corrupt record %d", path, i)
		}
		c.records[c.strs[k]] = b[d.pos : d.pos+l]
		d.pos += l
	}
	c.entries = int(ne)
	return c, nil
}

// decode returns the cached scan of content key for path, or nil.
func (c *cacheData) decode(key, path string) *cscan.File {
	rec, ok := c.records[key]
	if !ok {
		return nil
	}
	d := &decoder{b: rec, strs: c.strs}
	f := &cscan.File{Path: path}
	nf := d.u()
	if nf > uint64(len(rec)) {
		return nil
	}
	// Slabs: one allocation per file for functions, arguments and guards.
	funcs := make([]cscan.Func, nf)
	var strSlab []string
	var guardSlab []cscan.Guard
	take := func(n int) []string {
		if len(strSlab) < n {
			strSlab = make([]string, max(n, 256))
		}
		s := strSlab[:n:n]
		strSlab = strSlab[n:]
		return s
	}
	d.takeGuards = func(n int) []cscan.Guard {
		if len(guardSlab) < n {
			guardSlab = make([]cscan.Guard, max(n, 64))
		}
		g := guardSlab[:n:n]
		guardSlab = guardSlab[n:]
		return g
	}
	f.Funcs = make([]*cscan.Func, 0, nf)
	for i := uint64(0); i < nf && d.err == nil; i++ {
		fn := &funcs[i]
		fn.File = path
		fn.Name = d.s()
		fn.Macro = d.s()
		fn.Start = int(d.u())
		fn.BodyStart = fn.Start + int(d.u())
		fn.End = fn.BodyStart + int(d.u())
		flags := d.u()
		fn.Static, fn.Inline = flags&1 != 0, flags&2 != 0
		nc := d.u()
		if nc > uint64(len(rec)) {
			return nil
		}
		fn.Calls = make([]cscan.Call, nc)
		var prev []cscan.Guard
		for j := range fn.Calls {
			c := &fn.Calls[j]
			c.Name = d.s()
			c.Line = int(d.u())
			na := d.u()
			if na > uint64(len(rec)) {
				return nil
			}
			if na > 0 {
				c.Args = take(int(na))
				for k := range c.Args {
					c.Args[k] = d.s()
				}
			}
			prev = d.guards(prev)
			c.Guards = prev
		}
		nr := d.u()
		if nr > uint64(len(rec)) {
			return nil
		}
		if nr > 0 {
			fn.Returns = make([]cscan.Return, nr)
		}
		for j := range fn.Returns {
			r := &fn.Returns[j]
			r.Line = int(d.u())
			r.Expr = d.s()
			prev = d.guards(prev)
			r.Guards = prev
		}
		f.Funcs = append(f.Funcs, fn)
	}
	ns := d.u()
	for i := uint64(0); i < ns && d.err == nil && i < uint64(len(rec)); i++ {
		f.Skipped = append(f.Skipped, cscan.Skip{Name: d.s(), Line: int(d.u()), Reason: d.s()})
	}
	if d.err != nil {
		return nil
	}
	return f
}

type decoder struct {
	b    []byte
	pos  int
	strs []string
	err  error
	// takeGuards allocates guard lists (from a slab).
	takeGuards func(n int) []cscan.Guard
}

func (d *decoder) u() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 {
		d.err = errors.New("truncated")
		return 0
	}
	d.pos += n
	return v
}

func (d *decoder) s() string {
	i := d.u()
	if i >= uint64(len(d.strs)) {
		if d.err == nil {
			d.err = errors.New("bad string index")
		}
		return ""
	}
	return d.strs[i]
}

// guards decodes a guard list: 0 means "same as the previous list".
func (d *decoder) guards(prev []cscan.Guard) []cscan.Guard {
	n := d.u()
	if n == 0 {
		return prev
	}
	n--
	if n == 0 {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = errors.New("bad guard count")
		return nil
	}
	var g []cscan.Guard
	if d.takeGuards != nil {
		g = d.takeGuards(int(n))
	} else {
		g = make([]cscan.Guard, n)
	}
	for i := range g {
		g[i].Kind = d.s()
		g[i].Cond = d.s()
		g[i].Line = int(d.u())
	}
	return g
}

type encoder struct {
	buf  []byte
	strs map[string]uint64
	list []string
}

func (e *encoder) u(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

func (e *encoder) i(v int) {
	if v < 0 {
		v = 0
	}
	e.u(uint64(v))
}

func (e *encoder) s(s string) {
	id, ok := e.strs[s]
	if !ok {
		id = uint64(len(e.list))
		e.strs[s] = id
		e.list = append(e.list, s)
	}
	e.u(id)
}

func sameGuards(a, b []cscan.Guard) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	if &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (e *encoder) guards(g, prev []cscan.Guard, first bool) {
	if !first && sameGuards(g, prev) {
		e.u(0)
		return
	}
	e.u(uint64(len(g)) + 1)
	for _, x := range g {
		e.s(x.Kind)
		e.s(x.Cond)
		e.i(x.Line)
	}
}

func (e *encoder) file(f *cscan.File) {
	e.u(uint64(len(f.Funcs)))
	for _, fn := range f.Funcs {
		e.s(fn.Name)
		e.s(fn.Macro)
		e.i(fn.Start)
		e.i(fn.BodyStart - fn.Start)
		e.i(fn.End - fn.BodyStart)
		var flags uint64
		if fn.Static {
			flags |= 1
		}
		if fn.Inline {
			flags |= 2
		}
		e.u(flags)
		e.u(uint64(len(fn.Calls)))
		var prev []cscan.Guard
		first := true
		for _, c := range fn.Calls {
			e.s(c.Name)
			e.i(c.Line)
			e.u(uint64(len(c.Args)))
			for _, a := range c.Args {
				e.s(a)
			}
			e.guards(c.Guards, prev, first)
			prev, first = c.Guards, false
		}
		e.u(uint64(len(fn.Returns)))
		for _, r := range fn.Returns {
			e.i(r.Line)
			e.s(r.Expr)
			e.guards(r.Guards, prev, first)
			prev, first = r.Guards, false
		}
	}
	e.u(uint64(len(f.Skipped)))
	for _, s := range f.Skipped {
		e.s(s.Name)
		e.i(s.Line)
		e.s(s.Reason)
	}
}

// writeCache persists the scans of entries atomically (temp file + rename).
func writeCache(path string, entries []fileEntry, files []*cscan.File) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	e := &encoder{strs: make(map[string]uint64, 1<<20)}
	type rec struct {
		key        uint64
		start, end int
	}
	var recs []rec
	seen := map[string]bool{}
	for i, ent := range entries {
		if files[i] == nil || seen[ent.key] {
			continue
		}
		seen[ent.key] = true
		e.s(ent.key)
		k := e.strs[ent.key]
		start := len(e.buf)
		e.file(files[i])
		recs = append(recs, rec{k, start, len(e.buf)})
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	var hdr []byte
	hdr = append(hdr, cacheMagic...)
	hdr = binary.AppendUvarint(hdr, cacheVersion)
	hdr = binary.AppendUvarint(hdr, uint64(len(e.list)))
	w.Write(hdr)
	var tmpb []byte
	for _, s := range e.list {
		tmpb = binary.AppendUvarint(tmpb[:0], uint64(len(s)))
		w.Write(tmpb)
		w.WriteString(s)
	}
	tmpb = binary.AppendUvarint(tmpb[:0], uint64(len(recs)))
	w.Write(tmpb)
	for _, r := range recs {
		tmpb = binary.AppendUvarint(tmpb[:0], r.key)
		tmpb = binary.AppendUvarint(tmpb, uint64(r.end-r.start))
		w.Write(tmpb)
		w.Write(e.buf[r.start:r.end])
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

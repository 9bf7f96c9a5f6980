package index

import (
	"encoding/binary"
	"errors"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A record is one file content's scan: its functions (calls, returns and
// their guards) and skips, then its member assignments. Integers are
// uvarints and strings are ids into the store's string table, so a call
// name is stored once for the whole tree. Guard lists equal to the
// previous one of the same function are stored as a back-reference (and
// decoded as the same slice).

// decodeRecord decodes a record for path: the scan, and the member
// assignments when withAssigns is set. It returns nil for a damaged record.
func decodeRecord(rec []byte, strs *strtab, path string, withAssigns bool) (*cscan.File, []Assign) {
	d := &decoder{b: rec, strs: strs}
	f := &cscan.File{Path: path}
	nf := d.u()
	if nf > uint64(len(rec)) {
		return nil, nil
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
			return nil, nil
		}
		fn.Calls = make([]cscan.Call, nc)
		var prev []cscan.Guard
		for j := range fn.Calls {
			c := &fn.Calls[j]
			c.Name = d.s()
			c.Line = int(d.u())
			na := d.u()
			if na > uint64(len(rec)) {
				return nil, nil
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
			return nil, nil
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
		return nil, nil
	}
	if !withAssigns {
		return f, nil
	}
	na := d.u()
	if na > uint64(len(rec)) {
		return nil, nil
	}
	as := make([]Assign, 0, na)
	for i := uint64(0); i < na && d.err == nil; i++ {
		as = append(as, Assign{Struct: d.s(), Member: d.s(), Func: d.s(), Base: d.s(), Var: d.s(), Line: int(d.u())})
	}
	if d.err != nil {
		return nil, nil
	}
	return f, as
}

type decoder struct {
	b    []byte
	pos  int
	strs *strtab
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
	s, ok := d.strs.get(i)
	if !ok && d.err == nil {
		d.err = errors.New("bad string index")
	}
	return s
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

// assigns encodes a file's member assignments (File is implied).
func (e *encoder) assigns(as []Assign) {
	e.u(uint64(len(as)))
	for _, a := range as {
		e.s(a.Struct)
		e.s(a.Member)
		e.s(a.Func)
		e.s(a.Base)
		e.s(a.Var)
		e.i(a.Line)
	}
}

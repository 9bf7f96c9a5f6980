package index

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"unsafe"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A record is one file content's scan: a u32 count of functions and a u32
// offset per function (and one past the last) from the end of that table,
// so one function decodes without the others; the functions (calls,
// returns and their guards); the file's skips; then its member
// assignments. Other integers are uvarints. A string used often in the
// tree is an id into the store's string table (stored once, the most used
// first); others are written inline (decoder.s, encoder.reorder).
// Guard lists equal to the previous one of the same function are stored as
// a back-reference (and decoded as the same slice).

// recordFuncs returns the number of functions of rec and the start of its
// function area, ok false when rec is damaged.
func recordFuncs(rec section) (n int, area int64, ok bool) {
	if rec.len() < 4 {
		return 0, 0, false
	}
	n = int(rec.u32(0))
	if int64(n) > rec.len()/4 || 4+int64(n+1)*4 > rec.len() {
		return 0, 0, false
	}
	return n, 4 + int64(n+1)*4, true
}

// funcSpan returns the bytes of function j of rec (nil when damaged); j == n
// gives the tail: skips and assignments.
func funcSpan(rec section, j int) []byte {
	n, area, ok := recordFuncs(rec)
	if !ok || j < 0 || j > n {
		return nil
	}
	a := area + int64(rec.u32(4+int64(j)*4))
	b := rec.len()
	if j < n {
		b = area + int64(rec.u32(4+int64(j+1)*4))
	}
	if a > b {
		return nil
	}
	return rec.bytes(a, b-a)
}

// decodeFunc decodes function j of rec for path (nil when damaged).
func decodeFunc(rec section, strs *strtab, path string, j int) *cscan.Func {
	b := funcSpan(rec, j)
	if b == nil {
		return nil
	}
	d := &decoder{b: b, strs: strs}
	fn := d.fn(path)
	if d.err != nil {
		return nil
	}
	return fn
}

// decodeTail decodes the skips and, when withAssigns is set, the member
// assignments of rec; ok is false when rec is damaged.
func decodeTail(rec section, strs *strtab, withAssigns bool) (skips []cscan.Skip, as []Assign, ok bool) {
	n, _, ok := recordFuncs(rec)
	if !ok {
		return nil, nil, false
	}
	b := funcSpan(rec, n)
	if b == nil {
		return nil, nil, false
	}
	d := &decoder{b: b, strs: strs}
	ns := d.u()
	for i := uint64(0); i < ns && d.err == nil && i < uint64(len(b)); i++ {
		skips = append(skips, cscan.Skip{Name: d.s(), Line: int(d.u()), Reason: d.s()})
	}
	if withAssigns {
		na := d.u()
		if na > uint64(len(b)) {
			return nil, nil, false
		}
		as = make([]Assign, 0, na)
		for i := uint64(0); i < na && d.err == nil; i++ {
			as = append(as, Assign{Struct: d.s(), Member: d.s(), Func: d.s(), Base: d.s(), Var: d.s(), Line: int(d.u())})
		}
	}
	return skips, as, d.err == nil
}

// decodeRecord decodes a whole record for path: the scan, and the member
// assignments when withAssigns is set. It returns nil for a damaged record.
func decodeRecord(rec section, strs *strtab, path string, withAssigns bool) (*cscan.File, []Assign) {
	n, _, ok := recordFuncs(rec)
	if !ok {
		return nil, nil
	}
	f := &cscan.File{Path: path, Funcs: make([]*cscan.Func, n)}
	for j := range f.Funcs {
		if f.Funcs[j] = decodeFunc(rec, strs, path, j); f.Funcs[j] == nil {
			return nil, nil
		}
	}
	skips, as, ok := decodeTail(rec, strs, withAssigns)
	if !ok {
		return nil, nil
	}
	f.Skipped = skips
	return f, as
}

// lines decodes a function's first line, body's first line and last
// line, stored as the first and the distances between them.
func (d *decoder) lines() (start, body, end int) {
	start = int(d.u())
	body = start + int(d.u())
	end = body + int(d.u())
	return start, body, end
}

// fn decodes one function.
func (d *decoder) fn(path string) *cscan.Func {
	fn := &cscan.Func{File: path}
	fn.Name = d.s()
	fn.Macro = d.s()
	fn.Start, fn.BodyStart, fn.End = d.lines()
	flags := d.u()
	fn.Static, fn.Inline = flags&1 != 0, flags&2 != 0
	nc := d.u()
	if nc > uint64(len(d.b)) {
		d.err = errors.New("bad call count")
		return nil
	}
	fn.Calls = make([]cscan.Call, nc)
	// Slabs: one allocation per function for arguments and for guards.
	var strSlab []string
	var guardSlab []cscan.Guard
	take := func(n int) []string {
		if len(strSlab) < n {
			strSlab = make([]string, max(n, 2*len(fn.Calls)))
		}
		s := strSlab[:n:n]
		strSlab = strSlab[n:]
		return s
	}
	d.takeGuards = func(n int) []cscan.Guard {
		if len(guardSlab) < n {
			guardSlab = make([]cscan.Guard, max(n, 16))
		}
		g := guardSlab[:n:n]
		guardSlab = guardSlab[n:]
		return g
	}
	var prev []cscan.Guard
	for j := range fn.Calls {
		c := &fn.Calls[j]
		c.Name = d.s()
		c.Line = int(d.u())
		na := d.u()
		if na > uint64(len(d.b)) {
			d.err = errors.New("bad argument count")
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
	if nr > uint64(len(d.b)) {
		d.err = errors.New("bad return count")
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
	return fn
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

// s decodes a string: an id into the string table (v<<1) or, for a
// string used once in the tree, its length and bytes inline (n<<1 | 1).
func (d *decoder) s() string {
	v := d.u()
	if v&1 == 1 {
		n := v >> 1
		if n > uint64(len(d.b)-d.pos) {
			if d.err == nil {
				d.err = errors.New("bad inline string")
			}
			return ""
		}
		b := d.b[d.pos : d.pos+int(n)]
		d.pos += int(n)
		if n == 0 {
			return ""
		}
		return unsafe.String(&b[0], len(b))
	}
	s, ok := d.strs.get(v >> 1)
	if !ok && d.err == nil {
		d.err = errors.New("bad string index")
	}
	return s
}

// skipS skips a string s would decode, without looking it up.
func (d *decoder) skipS() {
	v := d.u()
	if v&1 == 0 {
		return
	}
	if n := v >> 1; n > uint64(len(d.b)-d.pos) {
		if d.err == nil {
			d.err = errors.New("bad inline string")
		}
	} else {
		d.pos += int(n)
	}
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
	// refs counts the references to each string id.
	refs []uint32
	// inline is set once the strings are counted (reorder): strings
	// without an id are then written inline.
	inline bool
}

// intern returns the id of s, adding it to the table.
func (e *encoder) intern(s string) uint64 {
	id, ok := e.strs[s]
	if !ok {
		id = uint64(len(e.list))
		e.strs[s] = id
		e.list = append(e.list, s)
		e.refs = append(e.refs, 0)
	}
	return id
}

func (e *encoder) u(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

func (e *encoder) i(v int) {
	if v < 0 {
		v = 0
	}
	e.u(uint64(v))
}

func (e *encoder) s(s string) {
	if e.inline {
		if id, ok := e.strs[s]; ok {
			e.u(id << 1)
			return
		}
		e.u(uint64(len(s))<<1 | 1)
		e.buf = append(e.buf, s...)
		return
	}
	id := e.intern(s)
	e.refs[id]++
	e.u(id << 1)
}

// sharedRefs is how often a string must occur in records to be stored
// once in the string table rather than inline.
const sharedRefs = 8

// reorder keeps in the string table the first pinned strings and those
// referenced at least sharedRefs times, the most referenced first, and
// switches to writing the others inline. The table stays small (a few MB
// for Linux, the hot pages of every decode) and decoding a function reads
// little more than its record; the common ids are the shortest varints.
func (e *encoder) reorder(pinned int) {
	var popular []uint32
	for id := pinned; id < len(e.list); id++ {
		if e.refs[id] >= sharedRefs {
			popular = append(popular, uint32(id))
		}
	}
	slices.SortStableFunc(popular, func(a, b uint32) int { return cmp.Compare(e.refs[b], e.refs[a]) })
	list := make([]string, 0, pinned+len(popular))
	list = append(list, e.list[:pinned]...)
	for _, id := range popular {
		list = append(list, e.list[id])
	}
	e.strs = make(map[string]uint64, len(list))
	for id, s := range list {
		e.strs[s] = uint64(id)
	}
	e.list = list
	e.refs = make([]uint32, len(list))
	e.inline = true
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

// file encodes f's functions and skips: the head of a record.
func (e *encoder) file(f *cscan.File) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(f.Funcs)))
	table := len(e.buf)
	e.buf = append(e.buf, make([]byte, (len(f.Funcs)+1)*4)...)
	area := len(e.buf)
	for j, fn := range f.Funcs {
		binary.LittleEndian.PutUint32(e.buf[table+j*4:], uint32(len(e.buf)-area))
		e.fn(fn)
	}
	binary.LittleEndian.PutUint32(e.buf[table+len(f.Funcs)*4:], uint32(len(e.buf)-area))
	e.u(uint64(len(f.Skipped)))
	for _, s := range f.Skipped {
		e.s(s.Name)
		e.i(s.Line)
		e.s(s.Reason)
	}
}

func (e *encoder) fn(fn *cscan.Func) {
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

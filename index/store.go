package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// The store is the persisted index of one tree: a single file, memory-mapped
// read-only and queried in place. Nothing is decoded at open; a query binary
// searches a sorted key table and decodes only the file records it needs.
//
// Layout (integers little-endian):
//
//	header   storeMagic, u64 version, u64 stats (files, funcs, calls,
//	         skipped), then per section a u64 offset and a u64 length
//	strOff   u32 per string: end offset of the string in strBlob
//	strBlob  the strings, concatenated (paths and content keys first)
//	files    per indexed path, sorted by path: u32 path id, u32 content key
//	         id, u64 record offset, u32 record length (record.go)
//	records  the records, one per distinct content key
//	funcDir  directory of function names (below) into funcRefs
//	funcRefs u32 file, u32 function index in the file's record
//	callDir  directory of callee names into callRefs
//	callRefs u32 file, u32 function, u32 call index
//	membDir  directory of the struct members called through ("release"
//	         for "ops->release") into membRefs
//	membRefs u32 callee name id
//	asgn     member assignments, ordered by member name, then file and
//	         position: u32 file, struct, member, func, base, var ids, line
//	asgnMDir directory of assigned members into asgn
//	asgnFDir directory of assigned function names into asgnF
//	asgnF    u32 entry of asgn, ordered by function name, file, position
//
// A directory is two sections: entries sorted by name, u32 offset of the
// name in the second section and u32 first entry of the name's rows, then a
// sentinel (end of the names, number of rows); and the names, concatenated
// in that order. A lookup is a binary search that touches only the
// directory's own pages (CallsTo reads every callee name, a few MB, not
// the string table); the rows of one name are contiguous and in file order.
const storeMagic = "autosel-bot idx\x02"

// storeVersion changes whenever the layout, the record encoding or the
// scanners' output does.
const storeVersion = 8 + cscan.Version*1000 + assignVersion*1000000

// Sections of a store, in file order.
const (
	secStrOff = iota
	secStrBlob
	secFiles
	secRecords
	secFuncDir
	secFuncNames
	secFuncRefs
	secCallDir
	secCallNames
	secCallRefs
	secMembDir
	secMembNames
	secMembRefs
	secAsgn
	secAsgnMDir
	secAsgnMNames
	secAsgnFDir
	secAsgnFNames
	secAsgnF
	numSections
)

// Entry sizes of the fixed-width sections.
const (
	fileSize    = 20
	dirSize     = 8
	funcRefSize = 8
	callRefSize = 12
	asgnSize    = 28
)

const storeHeaderSize = len(storeMagic) + 8 + 4*8 + numSections*16

// store is an opened store.
type store struct {
	p   *pager
	sec [numSections]section
	// strs is the string table.
	strs strtab
	// nFiles, nFuncs, nCalls, nSkipped are the stats of the indexed tree.
	nFiles, nFuncs, nCalls, nSkipped int
}

// strtab is the string table of a store.
type strtab struct{ off, blob section }

func (t *strtab) len() int { return int(t.off.len() / 4) }

// get returns string id; ok is false for a bad id or a damaged table.
func (t *strtab) get(id uint64) (string, bool) {
	if id >= uint64(t.len()) {
		return "", false
	}
	end := int64(t.off.u32(int64(id) * 4))
	start := int64(0)
	if id > 0 {
		start = int64(t.off.u32(int64(id)*4 - 4))
	}
	if start > end {
		return "", false
	}
	if start == end {
		return "", true
	}
	b := t.blob.bytes(start, end-start)
	if b == nil {
		return "", false
	}
	return unsafe.String(&b[0], len(b)), true
}

// str returns string id, "" when it is bad.
func (t *strtab) str(id uint32) string {
	s, _ := t.get(uint64(id))
	return s
}

// openStore opens a store file; its pages are read as queries need them,
// and at most budget bytes of them are kept (0 or less: all).
func openStore(path string, budget int64) (*store, error) {
	p, err := filePager(path, budget)
	if err != nil {
		return nil, err
	}
	st, err := newStore(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// openStoreBytes opens a store held in memory.
func openStoreBytes(b []byte) (*store, error) { return newStore(memPager(b)) }

// newStore checks the header of a store and locates its sections.
func newStore(p *pager) (*store, error) {
	hdr := p.bytes(0, int64(storeHeaderSize))
	if hdr == nil || string(hdr[:len(storeMagic)]) != storeMagic {
		return nil, errors.New("not an index store")
	}
	pos := len(storeMagic)
	u := func() uint64 {
		v := binary.LittleEndian.Uint64(hdr[pos:])
		pos += 8
		return v
	}
	if v := u(); v != storeVersion {
		return nil, fmt.Errorf("store version %d, want %d", v, storeVersion)
	}
	s := &store{p: p}
	var stats [4]uint64
	for i := range stats {
		stats[i] = u()
		if stats[i] > uint64(p.size)*64 {
			return nil, errors.New("corrupt header")
		}
	}
	s.nFiles, s.nFuncs, s.nCalls, s.nSkipped = int(stats[0]), int(stats[1]), int(stats[2]), int(stats[3])
	for i := range s.sec {
		off, n := u(), u()
		if off > uint64(p.size) || n > uint64(p.size)-off {
			return nil, fmt.Errorf("section %d out of bounds", i)
		}
		s.sec[i] = section{p, int64(off), int64(n)}
	}
	for _, c := range []struct {
		sec, size int
	}{{secStrOff, 4}, {secFiles, fileSize}, {secFuncDir, dirSize}, {secFuncRefs, funcRefSize},
		{secCallDir, dirSize}, {secCallRefs, callRefSize}, {secMembDir, dirSize}, {secMembRefs, 4},
		{secAsgn, asgnSize}, {secAsgnMDir, dirSize}, {secAsgnFDir, dirSize}, {secAsgnF, 4}} {
		if s.sec[c.sec].len()%int64(c.size) != 0 {
			return nil, fmt.Errorf("section %d: bad size", c.sec)
		}
	}
	if s.sec[secFiles].len()/fileSize != int64(s.nFiles) {
		return nil, errors.New("file table does not match the header")
	}
	s.strs = strtab{off: s.sec[secStrOff], blob: s.sec[secStrBlob]}
	return s, nil
}

// fileRec is one row of the file table.
type fileRec struct {
	path, key uint32
	off       uint64
	n         uint32
}

func (s *store) file(i int) fileRec {
	b := s.sec[secFiles].bytes(int64(i)*fileSize, fileSize)
	if b == nil {
		return fileRec{}
	}
	return fileRec{path: binary.LittleEndian.Uint32(b), key: binary.LittleEndian.Uint32(b[4:]),
		off: binary.LittleEndian.Uint64(b[8:]), n: binary.LittleEndian.Uint32(b[16:])}
}

// path returns the path of file i.
func (s *store) path(i int) string { return s.strs.str(s.file(i).path) }

// record returns the record of file i (empty when out of bounds).
func (s *store) record(i int) section {
	r := s.file(i)
	if r.off > 1<<62 {
		return section{p: s.p}
	}
	return s.sec[secRecords].sub(int64(r.off), int64(r.n))
}

// findFile returns the index of path in the file table, or -1.
func (s *store) findFile(path string) int {
	lo, hi := 0, s.nFiles
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if strings.Compare(s.path(m), path) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < s.nFiles && s.path(lo) == path {
		return lo
	}
	return -1
}

// dir is a directory: entries and names sections (see the layout).
type dir struct{ ent, names section }

// dir returns the directory whose entries are section sec.
func (s *store) dir(sec int) dir { return dir{s.sec[sec], s.sec[sec+1]} }

func (d dir) len() int {
	if n := int(d.ent.len() / dirSize); n > 0 {
		return n - 1
	}
	return 0
}

// name returns the bytes of name i (nil when damaged).
func (d dir) name(i int) []byte {
	a, b := int64(d.ent.u32(int64(i)*dirSize)), int64(d.ent.u32(int64(i)*dirSize+dirSize))
	if a > b {
		return nil
	}
	return d.names.bytes(a, b-a)
}

// nameString returns name i as a string sharing the store's memory.
func (d dir) nameString(i int) string {
	b := d.name(i)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// span returns the rows of name i: [a, b), empty when beyond limit.
func (d dir) span(i, limit int) (int, int) {
	a, b := int(d.ent.u32(int64(i)*dirSize+4)), int(d.ent.u32(int64(i)*dirSize+dirSize+4))
	if a > b || b > limit {
		return 0, 0
	}
	return a, b
}

// find returns the index of name in d, or -1.
func (d dir) find(name string) int {
	key := unsafe.Slice(unsafe.StringData(name), len(name))
	lo, hi := 0, d.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(d.name(m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < d.len() && bytes.Equal(d.name(lo), key) {
		return lo
	}
	return -1
}

// funcRef locates one function: file and index in its record.
type funcRef struct{ file, fn int }

// funcRefs returns the definitions of name.
func (s *store) funcRefs(name string) []funcRef {
	d := s.dir(secFuncDir)
	i := d.find(name)
	if i < 0 {
		return nil
	}
	refs := s.sec[secFuncRefs]
	a, b := d.span(i, int(refs.len()/funcRefSize))
	rows := refs.bytes(int64(a)*funcRefSize, int64(b-a)*funcRefSize)
	out := make([]funcRef, 0, b-a)
	for j := 0; j+funcRefSize <= len(rows); j += funcRefSize {
		out = append(out, funcRef{int(binary.LittleEndian.Uint32(rows[j:])), int(binary.LittleEndian.Uint32(rows[j+4:]))})
	}
	return out
}

// callRef locates one call: file, function and call index.
type callRef struct{ file, fn, call int }

// callRefsAt returns the call sites of callee directory entry i.
func (s *store) callRefsAt(i int) []callRef {
	d := s.dir(secCallDir)
	refs := s.sec[secCallRefs]
	a, b := d.span(i, int(refs.len()/callRefSize))
	rows := refs.bytes(int64(a)*callRefSize, int64(b-a)*callRefSize)
	out := make([]callRef, 0, b-a)
	for j := 0; j+callRefSize <= len(rows); j += callRefSize {
		out = append(out, callRef{int(binary.LittleEndian.Uint32(rows[j:])), int(binary.LittleEndian.Uint32(rows[j+4:])),
			int(binary.LittleEndian.Uint32(rows[j+8:]))})
	}
	return out
}

// callees returns the callee names calling through member.
func (s *store) callees(member string) []string {
	d := s.dir(secMembDir)
	i := d.find(member)
	if i < 0 {
		return nil
	}
	refs := s.sec[secMembRefs]
	a, b := d.span(i, int(refs.len()/4))
	out := make([]string, 0, b-a)
	for j := a; j < b; j++ {
		out = append(out, s.strs.str(refs.u32(int64(j)*4)))
	}
	return out
}

// assign returns assignment entry i with its file index.
func (s *store) assign(i int) (Assign, int) {
	e := s.sec[secAsgn].bytes(int64(i)*asgnSize, asgnSize)
	if e == nil {
		return Assign{}, -1
	}
	t := &s.strs
	v := func(k int) uint32 { return binary.LittleEndian.Uint32(e[k*4:]) }
	return Assign{Struct: t.str(v(1)), Member: t.str(v(2)), Func: t.str(v(3)),
		Base: t.str(v(4)), Var: t.str(v(5)), Line: int(v(6))}, int(v(0))
}

// assigns returns the assignments to member (byFunc false) or of function
// name (byFunc true), in file order.
func (s *store) assigns(key string, byFunc bool) []Assign {
	n := int(s.sec[secAsgn].len() / asgnSize)
	var out []Assign
	add := func(i int) {
		if i >= n {
			return
		}
		a, f := s.assign(i)
		if f < 0 || f >= s.nFiles {
			return
		}
		a.File = s.path(f)
		out = append(out, a)
	}
	if !byFunc {
		d := s.dir(secAsgnMDir)
		if i := d.find(key); i >= 0 {
			a, b := d.span(i, n)
			for j := a; j < b; j++ {
				add(j)
			}
		}
		return out
	}
	d := s.dir(secAsgnFDir)
	if i := d.find(key); i >= 0 {
		idx := s.sec[secAsgnF]
		a, b := d.span(i, int(idx.len()/4))
		for j := a; j < b; j++ {
			add(int(idx.u32(int64(j) * 4)))
		}
	}
	return out
}

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
//	funcDir  per function name, sorted by name: u32 name id, u32 first
//	         entry in funcRefs; then a sentinel
//	funcRefs u32 file, u32 function index in the file's record
//	callDir  per callee name, sorted: u32 name id, u32 first entry in
//	         callRefs; then a sentinel
//	callRefs u32 file, u32 function, u32 call index
//	membDir  per struct member called through ("release" for
//	         "ops->release"): u32 member id, u32 first entry in membRefs
//	membRefs u32 callee name id
//	asgn     member assignments, ordered by member name, then file and
//	         position: u32 file, struct, member, func, base, var ids, line
//	asgnMDir per member: u32 member id, u32 first entry in asgn
//	asgnFDir per function name: u32 name id, u32 first entry in asgnF
//	asgnF    u32 entry of asgn, ordered by function name, file, position
//
// Directories are sorted by the bytes of their names, so a lookup is a
// binary search; the entries of one name are contiguous and in file order.
const storeMagic = "autosel-bot idx\x02"

// storeVersion changes whenever the layout, the record encoding or the
// scanners' output does.
const storeVersion = 2 + cscan.Version*1000 + assignVersion*1000000

// Sections of a store, in file order.
const (
	secStrOff = iota
	secStrBlob
	secFiles
	secRecords
	secFuncDir
	secFuncRefs
	secCallDir
	secCallRefs
	secMembDir
	secMembRefs
	secAsgn
	secAsgnMDir
	secAsgnFDir
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

// store is an opened store: sections are slices of the mapped file (or of
// an in-memory buffer for an index without a cache file).
type store struct {
	data []byte
	strs strtab
	sec  [numSections][]byte
	// nFiles, nFuncs, nCalls, nSkipped are the stats of the indexed tree.
	nFiles, nFuncs, nCalls, nSkipped int
	// unmap releases a mapping (nil for memory).
	unmap func() error
}

// strtab is the string table of a store. Strings point into the table's
// bytes, which are never written after the store is opened.
type strtab struct {
	off  []byte
	blob []byte
}

func (t *strtab) len() int { return len(t.off) / 4 }

// get returns string id; ok is false for a bad id or a damaged table.
func (t *strtab) get(id uint64) (string, bool) {
	if id >= uint64(t.len()) {
		return "", false
	}
	end := uint64(binary.LittleEndian.Uint32(t.off[id*4:]))
	start := uint64(0)
	if id > 0 {
		start = uint64(binary.LittleEndian.Uint32(t.off[id*4-4:]))
	}
	if start > end || end > uint64(len(t.blob)) {
		return "", false
	}
	if start == end {
		return "", true
	}
	return unsafe.String(&t.blob[start], int(end-start)), true
}

// str returns string id, "" when it is bad.
func (t *strtab) str(id uint32) string {
	s, _ := t.get(uint64(id))
	return s
}

// bytesOf returns the bytes of string id (nil when bad) without building a
// string, for comparisons.
func (t *strtab) bytesOf(id uint32) []byte {
	s, ok := t.get(uint64(id))
	if !ok {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// openStoreBytes checks the header of b and slices its sections.
func openStoreBytes(b []byte) (*store, error) {
	if len(b) < storeHeaderSize || string(b[:len(storeMagic)]) != storeMagic {
		return nil, errors.New("not an index store")
	}
	p := len(storeMagic)
	u := func() uint64 {
		v := binary.LittleEndian.Uint64(b[p:])
		p += 8
		return v
	}
	if v := u(); v != storeVersion {
		return nil, fmt.Errorf("store version %d, want %d", v, storeVersion)
	}
	s := &store{data: b}
	var stats [4]uint64
	for i := range stats {
		stats[i] = u()
		if stats[i] > uint64(len(b))*64 {
			return nil, errors.New("corrupt header")
		}
	}
	s.nFiles, s.nFuncs, s.nCalls, s.nSkipped = int(stats[0]), int(stats[1]), int(stats[2]), int(stats[3])
	for i := range s.sec {
		off, n := u(), u()
		if off > uint64(len(b)) || n > uint64(len(b))-off {
			return nil, fmt.Errorf("section %d out of bounds", i)
		}
		s.sec[i] = b[off : off+n : off+n]
	}
	for _, c := range []struct {
		sec, size int
	}{{secStrOff, 4}, {secFiles, fileSize}, {secFuncDir, dirSize}, {secFuncRefs, funcRefSize},
		{secCallDir, dirSize}, {secCallRefs, callRefSize}, {secMembDir, dirSize}, {secMembRefs, 4},
		{secAsgn, asgnSize}, {secAsgnMDir, dirSize}, {secAsgnFDir, dirSize}, {secAsgnF, 4}} {
		if len(s.sec[c.sec])%c.size != 0 {
			return nil, fmt.Errorf("section %d: bad size", c.sec)
		}
	}
	if len(s.sec[secFiles])/fileSize != s.nFiles {
		return nil, errors.New("file table does not match the header")
	}
	s.strs = strtab{off: s.sec[secStrOff], blob: s.sec[secStrBlob]}
	return s, nil
}

func u32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// fileRec is one row of the file table.
type fileRec struct {
	path, key uint32
	off       uint64
	n         uint32
}

func (s *store) file(i int) fileRec {
	b := s.sec[secFiles][i*fileSize:]
	return fileRec{path: u32(b, 0), key: u32(b, 4), off: binary.LittleEndian.Uint64(b[8:]), n: u32(b, 16)}
}

// path returns the path of file i.
func (s *store) path(i int) string { return s.strs.str(s.file(i).path) }

// record returns the record bytes of file i (nil when out of bounds).
func (s *store) record(i int) []byte {
	r := s.file(i)
	recs := s.sec[secRecords]
	if r.off > uint64(len(recs)) || uint64(r.n) > uint64(len(recs))-r.off {
		return nil
	}
	return recs[r.off : r.off+uint64(r.n) : r.off+uint64(r.n)]
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

// dir is a directory section: sorted (name id, first entry) pairs and a
// sentinel whose first entry is the number of entries.
type dir []byte

func (d dir) names() int {
	if n := len(d) / dirSize; n > 0 {
		return n - 1
	}
	return 0
}

func (d dir) name(i int) uint32 { return u32(d, i*dirSize) }

// span returns the entries of name i: [a, b) clamped to limit.
func (d dir) span(i, limit int) (int, int) {
	a, b := int(u32(d, i*dirSize+4)), int(u32(d, i*dirSize+dirSize+4))
	if a > b || b > limit {
		return 0, 0
	}
	return a, b
}

// find returns the index of name in d, or -1.
func (s *store) find(d dir, name string) int {
	key := []byte(name)
	lo, hi := 0, d.names()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(s.strs.bytesOf(d.name(m)), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < d.names() && string(s.strs.bytesOf(d.name(lo))) == name {
		return lo
	}
	return -1
}

// funcRef locates one function: file and index in its record.
type funcRef struct{ file, fn int }

// funcRefs returns the definitions of name.
func (s *store) funcRefs(name string) []funcRef {
	d := dir(s.sec[secFuncDir])
	i := s.find(d, name)
	if i < 0 {
		return nil
	}
	refs := s.sec[secFuncRefs]
	a, b := d.span(i, len(refs)/funcRefSize)
	out := make([]funcRef, 0, b-a)
	for j := a; j < b; j++ {
		e := refs[j*funcRefSize:]
		out = append(out, funcRef{int(u32(e, 0)), int(u32(e, 4))})
	}
	return out
}

// callRef locates one call: file, function and call index.
type callRef struct{ file, fn, call int }

// callRefs returns the call sites of callee dir entry i.
func (s *store) callRefsAt(i int) []callRef {
	d := dir(s.sec[secCallDir])
	refs := s.sec[secCallRefs]
	a, b := d.span(i, len(refs)/callRefSize)
	out := make([]callRef, 0, b-a)
	for j := a; j < b; j++ {
		e := refs[j*callRefSize:]
		out = append(out, callRef{int(u32(e, 0)), int(u32(e, 4)), int(u32(e, 8))})
	}
	return out
}

// callees returns the callee names calling through member.
func (s *store) callees(member string) []string {
	d := dir(s.sec[secMembDir])
	i := s.find(d, member)
	if i < 0 {
		return nil
	}
	refs := s.sec[secMembRefs]
	a, b := d.span(i, len(refs)/4)
	out := make([]string, 0, b-a)
	for j := a; j < b; j++ {
		out = append(out, s.strs.str(u32(refs, j*4)))
	}
	return out
}

// assign returns assignment entry i with its file index.
func (s *store) assign(i int) (Assign, int) {
	e := s.sec[secAsgn][i*asgnSize:]
	t := &s.strs
	return Assign{Struct: t.str(u32(e, 4)), Member: t.str(u32(e, 8)), Func: t.str(u32(e, 12)),
		Base: t.str(u32(e, 16)), Var: t.str(u32(e, 20)), Line: int(u32(e, 24))}, int(u32(e, 0))
}

// assigns returns the assignments to member (byFunc false) or of function
// name (byFunc true), in file order.
func (s *store) assigns(key string, byFunc bool) []Assign {
	n := len(s.sec[secAsgn]) / asgnSize
	var out []Assign
	add := func(i int) {
		if i >= n {
			return
		}
		a, f := s.assign(i)
		if f >= s.nFiles {
			return
		}
		a.File = s.path(f)
		out = append(out, a)
	}
	if !byFunc {
		d := dir(s.sec[secAsgnMDir])
		if i := s.find(d, key); i >= 0 {
			a, b := d.span(i, n)
			for j := a; j < b; j++ {
				add(j)
			}
		}
		return out
	}
	d := dir(s.sec[secAsgnFDir])
	if i := s.find(d, key); i >= 0 {
		idx := s.sec[secAsgnF]
		a, b := d.span(i, len(idx)/4)
		for j := a; j < b; j++ {
			add(int(u32(idx, j*4)))
		}
	}
	return out
}

// close releases the mapping. Strings handed out point into it: call it
// only when nothing of the index is used any more.
func (s *store) close() error {
	if s.unmap == nil {
		return nil
	}
	return s.unmap()
}

package index

import (
	"io"
	"os"
	"runtime"
	"sync/atomic"
)

// pageSize is the unit a store file is read in.
const pageSize = 1024

// pager reads a store: from memory, or from its file in pages read on
// first use (pread) and kept. Reading pages rather than mapping the file
// keeps the process's memory to what queries touch: a mapping brings in
// 64 KB around every page fault (the kernel's fault-around), which for the
// scattered records and strings of a query is most of the file. Bytes
// returned are never written again, so strings may point into them.
type pager struct {
	mem   []byte
	f     *os.File
	size  int64
	pages []atomic.Pointer[[]byte]
	// read counts the pages read from the file.
	read atomic.Int64
}

func memPager(b []byte) *pager { return &pager{mem: b, size: int64(len(b))} }

// filePager reads path; the file is closed when the pager is unreachable.
func filePager(path string) (*pager, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	p := &pager{f: f, size: fi.Size(), pages: make([]atomic.Pointer[[]byte], (fi.Size()+pageSize-1)/pageSize)}
	runtime.AddCleanup(p, func(f *os.File) { f.Close() }, f)
	return p, nil
}

// page returns page i (nil on a read error).
func (p *pager) page(i int64) []byte {
	if pg := p.pages[i].Load(); pg != nil {
		return *pg
	}
	n := min(pageSize, p.size-i*pageSize)
	b := make([]byte, n)
	if _, err := p.f.ReadAt(b, i*pageSize); err != nil && err != io.EOF {
		return nil
	}
	p.read.Add(1)
	if !p.pages[i].CompareAndSwap(nil, &b) {
		return *p.pages[i].Load()
	}
	return b
}

// prefetch reads the pages of [off, off+n) with one read, for a region
// about to be read whole.
func (p *pager) prefetch(off, n int64) {
	if p.mem != nil || off < 0 || n <= 0 || off >= p.size {
		return
	}
	first, last := off/pageSize, (min(off+n, p.size)-1)/pageSize
	buf := make([]byte, min(p.size, (last+1)*pageSize)-first*pageSize)
	if _, err := p.f.ReadAt(buf, first*pageSize); err != nil && err != io.EOF {
		return
	}
	for i := first; i <= last; i++ {
		pg := buf[(i-first)*pageSize : min(int64(len(buf)), (i-first+1)*pageSize)]
		if p.pages[i].CompareAndSwap(nil, &pg) {
			p.read.Add(1)
		}
	}
}

// bytes returns n bytes at off, nil when out of range or unreadable.
func (p *pager) bytes(off, n int64) []byte {
	if off < 0 || n < 0 || off > p.size || n > p.size-off {
		return nil
	}
	if n == 0 {
		return []byte{}
	}
	if p.mem != nil {
		return p.mem[off : off+n : off+n]
	}
	first, last := off/pageSize, (off+n-1)/pageSize
	if first == last {
		pg := p.page(first)
		a := off - first*pageSize
		if pg == nil || a+n > int64(len(pg)) {
			return nil
		}
		return pg[a : a+n : a+n]
	}
	// Spanning pages: assembled from the cached pages.
	out := make([]byte, 0, n)
	for i := first; i <= last; i++ {
		pg := p.page(i)
		if pg == nil {
			return nil
		}
		a, b := int64(0), int64(len(pg))
		if i == first {
			a = off - first*pageSize
		}
		if i == last {
			b = off + n - last*pageSize
		}
		if a > b || b > int64(len(pg)) {
			return nil
		}
		out = append(out, pg[a:b]...)
	}
	return out
}

// section is a region of a store.
type section struct {
	p      *pager
	off, n int64
}

// len returns the section's size in bytes.
func (s section) len() int64 { return s.n }

// bytes returns n bytes at off in the section (nil when out of range).
func (s section) bytes(off, n int64) []byte {
	if off < 0 || n < 0 || off > s.n || n > s.n-off {
		return nil
	}
	return s.p.bytes(s.off+off, n)
}

// sub returns n bytes at off as a section (empty when out of range).
func (s section) sub(off, n int64) section {
	if off < 0 || n < 0 || off > s.n || n > s.n-off {
		return section{p: s.p}
	}
	return section{s.p, s.off + off, n}
}

// prefetch reads n bytes at off of the section with one read.
func (s section) prefetch(off, n int64) {
	if off >= 0 && off < s.n {
		s.p.prefetch(s.off+off, min(n, s.n-off))
	}
}

// u32 returns the little-endian uint32 at byte off, 0 when out of range.
func (s section) u32(off int64) uint32 {
	b := s.bytes(off, 4)
	if len(b) < 4 {
		return 0
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// u64 returns the little-endian uint64 at byte off, 0 when out of range.
func (s section) u64(off int64) uint64 {
	return uint64(s.u32(off)) | uint64(s.u32(off+4))<<32
}

package index

import (
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// pageSize is the unit a store file is read in.
const pageSize = 1024

// DefaultPageCache is the page cache budget of each file an Index reads
// (its store and each side file) when Options.PageCache is 0.
const DefaultPageCache = 64 << 20

// pager reads a store: from memory, or from its file in pages read on
// first use (pread) and kept. Reading pages rather than mapping the file
// keeps the process's memory to what queries touch: a mapping brings in
// 64 KB around every page fault (the kernel's fault-around), which for the
// scattered records and strings of a query is most of the file. Bytes
// returned are never written again, so strings may point into them.
//
// A pager with a budget (max pages) keeps at most that many pages: past
// it, reading a page evicts one chosen by a clock (second chance: a page
// read from the cache since the hand last passed it is skipped once).
// Evicting drops only the pager's pointer, so bytes handed out before stay
// valid, and an evicted page is read again when next asked for. Reading a
// cached page takes no lock (it sets the page's used bit); reading a page
// from the file takes the clock's mutex once, after the pread.
type pager struct {
	mem   []byte
	f     *os.File
	size  int64
	pages []atomic.Pointer[[]byte]
	// max is the most pages kept, 0 for all; used has a bit per page,
	// set when it is read from the cache.
	max  int
	used []atomic.Uint64
	// mu guards the clock: ring holds the cached pages (at most max),
	// hand the next one to look at.
	mu   sync.Mutex
	ring []int32
	hand int
	// read counts the pages read from the file, evicted those dropped by
	// the clock, held those cached now.
	read, evicted, held atomic.Int64
}

func memPager(b []byte) *pager { return &pager{mem: b, size: int64(len(b))} }

// filePager reads path, keeping at most budget bytes of its pages (0 or
// less: every page read); the file is closed when the pager is
// unreachable.
func filePager(path string, budget int64) (*pager, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	n := (fi.Size() + pageSize - 1) / pageSize
	p := &pager{f: f, size: fi.Size(), pages: make([]atomic.Pointer[[]byte], n)}
	if budget > 0 && budget/pageSize < n {
		p.max = int(max(1, budget/pageSize))
		p.used = make([]atomic.Uint64, (n+63)/64)
	}
	runtime.AddCleanup(p, func(f *os.File) { f.Close() }, f)
	return p, nil
}

// page returns page i (nil on a read error).
func (p *pager) page(i int64) []byte {
	if pg := p.pages[i].Load(); pg != nil {
		if p.max > 0 {
			w, bit := &p.used[i/64], uint64(1)<<(i%64)
			if w.Load()&bit == 0 {
				w.Or(bit)
			}
		}
		return *pg
	}
	n := min(pageSize, p.size-i*pageSize)
	b := make([]byte, n)
	if _, err := p.f.ReadAt(b, i*pageSize); err != nil && err != io.EOF {
		return nil
	}
	p.read.Add(1)
	p.install(i, b)
	return b
}

// install caches b as page i unless another reader cached it first, and
// runs the clock when the pager is over its budget.
func (p *pager) install(i int64, b []byte) {
	if !p.pages[i].CompareAndSwap(nil, &b) {
		return
	}
	p.held.Add(1)
	if p.max == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.used[i/64].And(^(uint64(1) << (i % 64)))
	if len(p.ring) < p.max {
		p.ring = append(p.ring, int32(i))
		return
	}
	// Second chance: a used page has its bit cleared and is passed over;
	// after two turns (readers may set bits as fast as the hand clears
	// them) the page under the hand goes anyway.
	for step := 0; ; step++ {
		v := int64(p.ring[p.hand])
		w, bit := &p.used[v/64], uint64(1)<<(v%64)
		if step < 2*len(p.ring) && w.Load()&bit != 0 {
			w.And(^bit)
			p.hand = (p.hand + 1) % len(p.ring)
			continue
		}
		if p.pages[v].Swap(nil) != nil {
			p.held.Add(-1)
			p.evicted.Add(1)
		}
		p.ring[p.hand] = int32(i)
		p.hand = (p.hand + 1) % len(p.ring)
		return
	}
}

// drop forgets every cached page (bytes handed out stay valid). Reads
// running meanwhile are safe but may leave a page cached.
func (p *pager) drop() {
	if p.mem != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.pages {
		if p.pages[i].Swap(nil) != nil {
			p.held.Add(-1)
		}
	}
	for i := range p.used {
		p.used[i].Store(0)
	}
	p.ring, p.hand = p.ring[:0], 0
}

// prefetch reads the pages of [off, off+n) with one read, for a region
// about to be read whole. A pager with a budget reads at most half of it
// this way and gives each page its own buffer, so that evicting a page
// frees it.
func (p *pager) prefetch(off, n int64) {
	if p.mem != nil || off < 0 || n <= 0 || off >= p.size {
		return
	}
	first, last := off/pageSize, (min(off+n, p.size)-1)/pageSize
	if p.max > 0 {
		last = min(last, first+int64(p.max/2)-1)
		if last < first {
			return
		}
	}
	buf := make([]byte, min(p.size, (last+1)*pageSize)-first*pageSize)
	if _, err := p.f.ReadAt(buf, first*pageSize); err != nil && err != io.EOF {
		return
	}
	for i := first; i <= last; i++ {
		pg := buf[(i-first)*pageSize : min(int64(len(buf)), (i-first+1)*pageSize)]
		if p.pages[i].Load() != nil {
			continue
		}
		if p.max > 0 {
			pg = append([]byte(nil), pg...)
		}
		p.read.Add(1)
		p.install(i, pg)
	}
}

// PageStats count the pages of the files an Index reads, in bytes (a
// file's last page counts as a whole one).
type PageStats struct {
	// Held are the bytes cached now; Read those read from the files so
	// far (pages read again after eviction count again); Evicted those
	// dropped to keep within the budget (Options.PageCache).
	Held, Read, Evicted int64
}

// stats returns p's page counts.
func (p *pager) stats() PageStats {
	return PageStats{Held: p.held.Load() * pageSize, Read: p.read.Load() * pageSize, Evicted: p.evicted.Load() * pageSize}
}

// add returns the sum of s and t.
func (s PageStats) add(t PageStats) PageStats {
	return PageStats{Held: s.Held + t.Held, Read: s.Read + t.Read, Evicted: s.Evicted + t.Evicted}
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

package index

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// writeRandom writes n random bytes to a file in t's temporary directory.
func writeRandom(t testing.TB, n int, seed int64) (string, []byte) {
	t.Helper()
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	path := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b
}

// TestPagerBudget: a pager kept within a budget returns the same bytes as
// the file holds (single pages, regions spanning several pages, the short
// last page), never holds more pages than the budget, and evicts.
func TestPagerBudget(t *testing.T) {
	const size = 37*pageSize + 300
	path, want := writeRandom(t, size, 1)
	for _, tc := range []struct {
		name     string
		budget   int64
		maxPages int64 // 0: every page read
		evicts   bool
	}{
		{"unbounded", -1, 0, false},
		{"fits", 64 * pageSize, 0, false},
		{"one page", 1, 1, true},
		{"two pages", 2 * pageSize, 2, true},
		{"five pages", 5 * pageSize, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := filePager(path, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			rnd := rand.New(rand.NewSource(2))
			var kept [][]byte
			var keptAt []int64
			for k := 0; k < 3000; k++ {
				off := rnd.Int63n(size)
				n := rnd.Int63n(min(size-off, 3*pageSize) + 1)
				if k%50 == 0 {
					off, n = size-7, 7 // the short last page
				}
				got := p.bytes(off, n)
				if !bytes.Equal(got, want[off:off+n]) {
					t.Fatalf("bytes(%d, %d) differ from the file", off, n)
				}
				if k%97 == 0 {
					kept, keptAt = append(kept, got), append(keptAt, off)
				}
				if held := p.held.Load(); tc.maxPages > 0 && held > tc.maxPages {
					t.Fatalf("after %d reads: %d pages held, budget %d", k, held, tc.maxPages)
				}
			}
			// Bytes handed out before evictions are still the file's.
			for i, b := range kept {
				if !bytes.Equal(b, want[keptAt[i]:keptAt[i]+int64(len(b))]) {
					t.Fatalf("bytes handed out at %d changed", keptAt[i])
				}
			}
			st := p.stats()
			if (st.Evicted > 0) != tc.evicts {
				t.Errorf("evicted %d bytes, want evictions %v", st.Evicted, tc.evicts)
			}
			if st.Read-st.Evicted != st.Held {
				t.Errorf("read %d - evicted %d != held %d", st.Read, st.Evicted, st.Held)
			}
			if p.bytes(size-1, 2) != nil || p.bytes(-1, 1) != nil {
				t.Error("out-of-range reads answered")
			}
		})
	}
}

// TestPagerClock: pages read again since the hand last passed them stay
// while others are evicted.
func TestPagerClock(t *testing.T) {
	path, want := writeRandom(t, 64*pageSize, 3)
	p, err := filePager(path, 4*pageSize)
	if err != nil {
		t.Fatal(err)
	}
	hot := int64(0)
	for i := int64(1); i < 64; i++ {
		p.page(hot) // hot is read between every two cold pages
		if !bytes.Equal(p.page(i), want[i*pageSize:(i+1)*pageSize]) {
			t.Fatalf("page %d differs", i)
		}
	}
	if p.read.Load() != 64 {
		t.Errorf("%d pages read, want 64 (the hot page once)", p.read.Load())
	}
	if p.pages[hot].Load() == nil {
		t.Error("the hot page was evicted")
	}
}

// TestPagerConcurrent: readers sharing a pager of a 3-page budget all get
// the file's bytes (run with -race).
func TestPagerConcurrent(t *testing.T) {
	const size = 50 * pageSize
	path, want := writeRandom(t, size, 4)
	p, err := filePager(path, 3*pageSize)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed))
			var kept [][]byte
			var keptAt []int64
			for k := 0; k < 2000; k++ {
				off := rnd.Int63n(size)
				n := rnd.Int63n(min(size-off, 2*pageSize) + 1)
				got := p.bytes(off, n)
				if !bytes.Equal(got, want[off:off+n]) {
					errs <- fmt.Errorf("bytes(%d, %d) differ", off, n)
					return
				}
				kept, keptAt = append(kept, got), append(keptAt, off)
			}
			for i, b := range kept {
				if !bytes.Equal(b, want[keptAt[i]:keptAt[i]+int64(len(b))]) {
					errs <- fmt.Errorf("bytes handed out at %d changed", keptAt[i])
					return
				}
			}
		}(int64(g))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if h := p.held.Load(); h > 3 {
		t.Errorf("%d pages held, budget 3", h)
	}
	if p.evicted.Load() == 0 {
		t.Error("no page evicted")
	}
}

// TestPagerPrefetch: a prefetch under a budget reads at most half of it,
// and a page evicted afterwards is read again correctly.
func TestPagerPrefetch(t *testing.T) {
	path, want := writeRandom(t, 40*pageSize, 5)
	p, err := filePager(path, 8*pageSize)
	if err != nil {
		t.Fatal(err)
	}
	p.prefetch(3*pageSize+10, 20*pageSize)
	if got := p.read.Load(); got != 4 {
		t.Errorf("prefetch read %d pages, want 4", got)
	}
	if !bytes.Equal(p.bytes(3*pageSize, 30*pageSize), want[3*pageSize:33*pageSize]) {
		t.Error("bytes after prefetch differ")
	}
	if p.held.Load() > 8 {
		t.Errorf("%d pages held, budget 8", p.held.Load())
	}
}

// bigTree returns n source files with a few functions each, calling each
// other and assigning ops, large enough for a store of many pages.
func bigTree(n int) map[string]string {
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("drivers/d%03d/f.c", i)] = fmt.Sprintf(
			"static int open_%[1]d(struct inode *i, struct file *f)\n{\n\tmutex_lock(&lock_%[1]d);\n\thelper_%[2]d(f, \"a string literal of file %[1]d\");\n\treturn 0;\n}\n\n"+
				"void helper_%[1]d(struct file *f, const char *s)\n{\n\tspin_lock(&f->lock);\n\tf->f_op->release(f);\n\tkfree(s);\n}\n\n"+
				"static const struct file_operations fops_%[1]d = {\n\t.open = open_%[1]d,\n\t.release = helper_%[1]d,\n};\n",
			i, (i+1)%n)
	}
	return files
}

// TestStoreSmallPageCache: an index read through a 2-page cache answers
// every query exactly like one that keeps every page, and so do side files
// opened on it; Release drops the pages of both.
func TestStoreSmallPageCache(t *testing.T) {
	dir := t.TempDir()
	const n = 300
	testtree.Write(t, dir, bigTree(n))
	cache := t.TempDir()
	full, err := Open(context.Background(), dir, Options{CacheDir: cache, PageCache: -1})
	if err != nil {
		t.Fatal(err)
	}
	small, err := Open(context.Background(), dir, Options{CacheDir: cache, PageCache: 2 * pageSize})
	if err != nil {
		t.Fatal(err)
	}
	if small.Stats.Cached != n || small.st.p.max != 2 || full.st.p.max != 0 {
		t.Fatalf("stats %+v, budgets %d and %d pages", small.Stats, small.st.p.max, full.st.p.max)
	}
	// A side file with records of every size, some spanning pages.
	recs := make([][][]byte, full.NumFiles())
	for i := range recs {
		for j := range full.FileRefs(i) {
			recs[i] = append(recs[i], bytes.Repeat([]byte{byte(i), byte(j)}, (i*37+j*11)%900))
		}
	}
	side := filepath.Join(cache, "x.side")
	if err := WriteSide(side, full.Generation(), len(recs), func(i int) [][]byte { return recs[i] }); err != nil {
		t.Fatal(err)
	}
	fs, err := full.OpenSide(side)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := small.OpenSide(side)
	if err != nil {
		t.Fatal(err)
	}
	compare := func() {
		t.Helper()
		for i := 0; i < n; i++ {
			for _, name := range []string{fmt.Sprintf("open_%d", i), fmt.Sprintf("helper_%d", i)} {
				if a, b := full.Funcs(name), small.Funcs(name); len(a) != 1 || !reflect.DeepEqual(a, b) {
					t.Fatalf("Funcs(%s): %d functions, equal %v", name, len(a), reflect.DeepEqual(a, b))
				}
				if a, b := sites(full.Callers(name)), sites(small.Callers(name)); !reflect.DeepEqual(a, b) {
					t.Fatalf("Callers(%s) = %v, want %v", name, b, a)
				}
				if a, b := small.AssignsOf(name), full.AssignsOf(name); !reflect.DeepEqual(a, b) {
					t.Fatalf("AssignsOf(%s) = %+v, want %+v", name, a, b)
				}
			}
			if a, b := full.File(fmt.Sprintf("drivers/d%03d/f.c", i)), small.File(fmt.Sprintf("drivers/d%03d/f.c", i)); !reflect.DeepEqual(a, b) {
				t.Fatalf("File %d differs", i)
			}
			for _, r := range full.FileRefs(i) {
				if a, b := fs.Get(r), ss.Get(r); !bytes.Equal(a, b) || !bytes.Equal(a, recs[r.File()][r.Pos()]) {
					t.Fatalf("side record %d/%d differs", r.File(), r.Pos())
				}
			}
		}
		if a, b := sites(full.MemberCallers("release")), sites(small.MemberCallers("release")); len(a) != n || !reflect.DeepEqual(a, b) {
			t.Fatalf("MemberCallers(release): %d sites, equal %v", len(a), reflect.DeepEqual(a, b))
		}
		if a, b := full.AssignsTo("open"), small.AssignsTo("open"); len(a) != n || !reflect.DeepEqual(a, b) {
			t.Fatalf("AssignsTo(open): %d, equal %v", len(a), reflect.DeepEqual(a, b))
		}
	}
	compare()
	ps, fp := small.Pages(), full.Pages()
	if ps.Evicted == 0 || fp.Evicted != 0 {
		t.Errorf("evicted %d bytes with 2 pages, %d unbounded", ps.Evicted, fp.Evicted)
	}
	if ps.Held > 2*2*pageSize || ss.Pages().Held > 2*pageSize {
		t.Errorf("held %d bytes (side %d), budget 2 pages per file", ps.Held, ss.Pages().Held)
	}
	if fp.Held == 0 || fp.Held != fp.Read {
		t.Errorf("unbounded: held %d, read %d", fp.Held, fp.Read)
	}
	for _, ix := range []*Index{full, small} {
		ix.Release()
		if st := ix.Pages(); st.Held != 0 {
			t.Errorf("after Release: %d bytes of pages held", st.Held)
		}
		if _, b := ix.Warm(); b != 0 {
			t.Errorf("after Release: Warm reports %d store bytes", b)
		}
	}
	compare()
}

// TestStoreConcurrentSmallPageCache: queries from many goroutines over a
// 3-page cache answer as one reader does (run with -race).
func TestStoreConcurrentSmallPageCache(t *testing.T) {
	dir := t.TempDir()
	const n = 120
	testtree.Write(t, dir, bigTree(n))
	cache := t.TempDir()
	want := map[string][]string{}
	full, err := Open(context.Background(), dir, Options{CacheDir: cache, PageCache: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("helper_%d", i)
		want[name] = sites(full.Callers(name))
	}
	small, err := Open(context.Background(), dir, Options{CacheDir: cache, PageCache: 3 * pageSize})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 6)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < n; k++ {
				name := fmt.Sprintf("helper_%d", (k*7+g*13)%n)
				if got := sites(small.Callers(name)); !reflect.DeepEqual(got, want[name]) {
					errs <- fmt.Sprintf("Callers(%s) = %v, want %v", name, got, want[name])
					return
				}
				if fns := small.Funcs(name); len(fns) != 1 || len(fns[0].Calls) != 3 {
					errs <- fmt.Sprintf("Funcs(%s) = %v", name, fns)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if small.Pages().Held > 3*pageSize {
		t.Errorf("held %d bytes, budget 3 pages", small.Pages().Held)
	}
}

// BenchmarkPager: random reads of 1 to 64 bytes (some spanning pages) over
// a 16 MB file from every CPU, kept within budgets from a sixteenth of the
// file to all of it, after one pass over the file (so that "all" reads
// only cached pages); evictions and preads per read are reported.
func BenchmarkPager(b *testing.B) {
	const size = 16 << 20
	path, _ := writeRandom(b, size, 6)
	for _, budget := range []int64{-1, size / 4, size / 16} {
		name := "all"
		if budget > 0 {
			name = fmt.Sprintf("%dMB", budget>>20)
		}
		b.Run("budget="+name, func(b *testing.B) {
			p, err := filePager(path, budget)
			if err != nil {
				b.Fatal(err)
			}
			for off := int64(0); off < size; off += pageSize {
				p.bytes(off, 1)
			}
			p.read.Store(0)
			p.evicted.Store(0)
			b.ResetTimer()
			// Skewed: most reads go to a hot eighth of the file.
			b.RunParallel(func(pb *testing.PB) {
				rnd := rand.New(rand.NewSource(rand.Int63()))
				for pb.Next() {
					off := rnd.Int63n(size / 8)
					if rnd.Intn(4) == 0 {
						off = rnd.Int63n(size - 64)
					}
					if p.bytes(off, 1+rnd.Int63n(64)) == nil {
						b.Error("read failed")
						return
					}
				}
			})
			b.ReportMetric(float64(p.read.Load())/float64(b.N), "preads/op")
			b.ReportMetric(float64(p.evicted.Load())/float64(b.N), "evictions/op")
			b.ReportMetric(float64(p.held.Load()*pageSize)/(1<<20), "held-MB")
		})
	}
}

package lockctx

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
)

// TestRecordCache: the cache stays within its bound after every put, its
// size is the cost of what it holds, a record it answers is the one put,
// and a record asked for between puts outlives the others.
func TestRecordCache(t *testing.T) {
	rec := func(i int) *record {
		if i%9 == 0 {
			return nil // damaged records are cached too
		}
		return &record{deps: make([]index.Ref, i%5), members: []string{fmt.Sprint("m", i)}, rest: make([]byte, (i*37)%300)}
	}
	for _, tc := range []struct {
		name    string
		max     int64
		evicts  bool
		hotKept bool
	}{
		{"unbounded", 0, false, true},
		{"roomy", 1 << 20, false, true},
		{"small", 4 << 10, true, true},
		{"one record", 1, true, false}, // the hot record goes at the first put
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newRecordCache(tc.max)
			put := map[index.Ref]*record{}
			hot := index.MakeRef(0, 0)
			c.put(hot, rec(1))
			put[hot] = c.m[hot].rec
			for i := 1; i < 500; i++ {
				r := index.MakeRef(i, i%3)
				p := rec(i)
				c.put(r, p)
				put[r] = p
				c.get(hot)
				var sum int64
				for _, e := range c.m {
					sum += e.cost
				}
				if sum != c.size || len(c.ring) != len(c.m) {
					t.Fatalf("size %d, costs %d; ring %d, map %d", c.size, sum, len(c.ring), len(c.m))
				}
				if tc.max > 0 && c.size > tc.max && c.len() > 1 {
					t.Fatalf("after %d puts: %d bytes cached, bound %d", i, c.size, tc.max)
				}
			}
			for r, p := range put {
				if got, ok := c.get(r); ok && got != p {
					t.Fatalf("record %v: another record cached", r)
				}
			}
			if (c.evicted > 0) != tc.evicts {
				t.Errorf("%d evicted, want evictions %v", c.evicted, tc.evicts)
			}
			if _, ok := c.m[hot]; ok != tc.hotKept {
				t.Errorf("hot record kept %v, want %v", ok, tc.hotKept)
			}
		})
	}
}

// TestStoredTinyCaches: over an index that keeps one page per file and
// one decoded record, every summary of the stored tree (pre-patch and
// under a patch) is the same as over one that keeps everything; Release
// drops the decoded records.
func TestStoredTinyCaches(t *testing.T) {
	m := testModel(t)
	ix := openStoreTree(t)
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	open := func(pageCache int64) *index.Index {
		t.Helper()
		o, err := index.Open(context.Background(), ix.Root, index.Options{CacheDir: ix.CacheDir(), PageCache: pageCache})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	full, tiny := open(-1), open(1)
	patch := map[string][]byte{"a.c": []byte("void leaf(int x)\n{\n\tsleep_long();\n}\n\nvoid mid(int x)\n{\n\tleaf(x);\n}\n\nvoid top(void)\n{\n\tmid(1);\n}\n\nvoid other(void)\n{\n}\n")}
	summaries := func(base *index.Index, patched bool) map[string]*Summary {
		t.Helper()
		view, pf := base, map[string][]*cscan.Func(nil)
		if patched {
			view, pf = base.Overlay(patch), map[string][]*cscan.Func{}
			for _, fn := range view.File("a.c").Funcs {
				pf[fn.Name] = append(pf[fn.Name], fn)
			}
		}
		r := NewResolver(m, view, pf)
		out := map[string]*Summary{}
		var paths []string
		for p := range storeTree {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			for _, fn := range view.File(p).Funcs {
				out[p+":"+fn.Name] = r.SummaryOf(fn)
			}
		}
		return out
	}
	for _, patched := range []bool{false, true} {
		want, got := summaries(full, patched), summaries(tiny, patched)
		if len(want) < 10 || len(got) != len(want) {
			t.Fatalf("patched %v: %d summaries, want %d", patched, len(got), len(want))
		}
		for k, w := range want {
			if !reflect.DeepEqual(got[k], w) {
				t.Errorf("patched %v: %s with tiny caches %+v, want %+v", patched, k, got[k], w)
			}
		}
	}
	src, ok := storeFor(m, tiny).(*sideSource)
	if !ok {
		t.Fatal("no stored summaries")
	}
	if src.recs.evicted == 0 || src.recs.len() != 1 || tiny.Pages().Evicted == 0 {
		t.Errorf("tiny caches: %d records evicted, %d cached, %d page bytes evicted", src.recs.evicted, src.recs.len(), tiny.Pages().Evicted)
	}
	fsrc := storeFor(m, full).(*sideSource)
	if fsrc.recs.evicted != 0 || fsrc.recs.len() < 10 {
		t.Errorf("unbounded: %d records evicted, %d cached", fsrc.recs.evicted, fsrc.recs.len())
	}
	full.Release()
	if again := storeFor(m, full).(*sideSource); again == fsrc || again.recs.len() != 0 {
		t.Errorf("after Release: same source %v, %d records cached", again == fsrc, again.recs.len())
	}
}

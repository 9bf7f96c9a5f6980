package lockctx

import (
	"context"
	"reflect"
	"sort"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/sumstore"
)

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
	stats := func(ix *index.Index) sumstore.Stats {
		r := NewResolver(m, ix, nil)
		if r.view == nil {
			t.Fatal("no stored summaries")
		}
		return r.view.Stats()
	}
	if st := stats(tiny); st.Evicted == 0 || st.Cached != 1 || tiny.Pages().Evicted == 0 {
		t.Errorf("tiny caches: %d records evicted, %d cached, %d page bytes evicted", st.Evicted, st.Cached, tiny.Pages().Evicted)
	}
	if st := stats(full); st.Evicted != 0 || st.Cached < 10 {
		t.Errorf("unbounded: %d records evicted, %d cached", st.Evicted, st.Cached)
	}
	full.Release()
	if st := stats(full); st.Cached != 0 {
		t.Errorf("after Release: %d records cached", st.Cached)
	}
}

package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

func TestCacheDirFor(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	for _, tc := range []struct{ in, want string }{
		{"-", ""},
		{"", "/xdg/autosel-bot"},
		{"/var/cache/x", "/var/cache/x"},
	} {
		got, err := CacheDirFor(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("CacheDirFor(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestCachedAndPrune indexes two small trees into one cache directory,
// lists them per tree and prunes one: the other stays.
func TestCachedAndPrune(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	trees := []string{
		testtree.Dir(t, map[string]string{"a.c": "void a(void) { b(); }\nvoid b(void) {}\n"}),
		testtree.Dir(t, map[string]string{"x/y.c": "int y(void) { return 0; }\n"}),
	}
	for _, tree := range trees {
		ix, err := Open(ctx, tree, Options{CacheDir: cache, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		ix.Release()
	}
	got, err := Cached(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Cached: %d entries, want 2: %+v", len(got), got)
	}
	for _, tree := range trees {
		e, ok, err := CachedTree(cache, tree)
		if err != nil || !ok {
			t.Fatalf("CachedTree(%s) = %v, %v", tree, ok, err)
		}
		if e.Tree != tree {
			t.Errorf("tree %q, want %q", e.Tree, tree)
		}
		if e.Size <= 0 || e.Modified.IsZero() {
			t.Errorf("%s: size %d, modified %v", tree, e.Size, e.Modified)
		}
		var store bool
		for _, f := range e.Files {
			store = store || strings.HasSuffix(f, ".store")
			if strings.HasSuffix(f, ".lock") {
				t.Errorf("lock file listed: %s", f)
			}
		}
		if !store {
			t.Errorf("%s: no store among %v", tree, e.Files)
		}
	}
	e, _, _ := CachedTree(cache, trees[0])
	freed, err := Prune(ctx, cache, e)
	if err != nil {
		t.Fatal(err)
	}
	if freed != e.Size {
		t.Errorf("freed %d, want %d", freed, e.Size)
	}
	if _, ok, _ := CachedTree(cache, trees[0]); ok {
		t.Errorf("%s still cached after Prune", trees[0])
	}
	if left, _ := filepath.Glob(filepath.Join(cache, e.Key+".*")); len(left) != 0 {
		t.Errorf("left after Prune: %v", left)
	}
	if _, ok, _ := CachedTree(cache, trees[1]); !ok {
		t.Errorf("%s pruned with the other tree", trees[1])
	}
	if got, err := Cached(filepath.Join(cache, "none")); err != nil || len(got) != 0 {
		t.Errorf("Cached(missing dir) = %v, %v", got, err)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatal(err)
	}
}

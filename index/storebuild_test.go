package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/stageprogress"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

var updateStoreGolden = flag.Bool("update-store-golden", false, "rewrite testdata/store-golden.txt")

// goldenTree is a tree that exercises every part of a store: strings used
// often (the string table) and once (inline), duplicate contents (shared
// records), guards repeated and changed between calls, returns, skips,
// member calls and assignments.
func goldenTree() map[string]string {
	files := bigTree(40)
	maps.Copy(files, storeTree)
	files["kernel/guards.c"] = "int g(struct dev *d, int x)\n{\n\tif (x > 1) {\n\t\tspin_lock(&d->lock);\n\t\tfoo(d);\n\t\tbar(d);\n\t\tspin_unlock(&d->lock);\n\t\treturn -EINVAL;\n\t}\n" +
		"\twhile (x--)\n\t\td->ops->poll(d);\n\treturn x ? 1 : 0;\n}\n\n" +
		"static void (*tbl[])(void) = { [0] = g_a, };\n\nvoid h(void)\n{\n\tif (a)\n\t\tb();\n\telse\n\t\tc();\n\td();\n}\n"
	files["include/linux/m.h"] = "#define M(x) do { x; } while (0)\nstatic inline int m_get(void)\n{\n\treturn READ_ONCE(v);\n}\n"
	return files
}

// storeDigest builds the index of a git repository of files with the given
// number of workers and returns the SHA-256 of its store file.
func storeDigest(t *testing.T, files map[string]string, workers int) string {
	t.Helper()
	dir := testtree.Repo(t, files)
	cache := t.TempDir()
	ix, err := Open(context.Background(), dir, Options{CacheDir: cache, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ix.Stats.CacheFile)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestStoreGolden: the store of a fixed tree is byte for byte the one the
// two-pass in-memory builder wrote (testdata/store-golden.txt), whatever
// the number of workers: the streaming build changes how a store is made,
// not what it holds.
func TestStoreGolden(t *testing.T) {
	golden := filepath.Join("testdata", "store-golden.txt")
	files := goldenTree()
	got := storeDigest(t, files, 1)
	if *updateStoreGolden {
		if err := os.WriteFile(golden, []byte(fmt.Sprintf("v%d %s\n", storeVersion, got)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(b))
	if g := fmt.Sprintf("v%d %s", storeVersion, got); g != want {
		t.Fatalf("store digest %s, want %s (-update-store-golden after a deliberate format change)", g, want)
	}
	for _, w := range []int{2, 5} {
		if g := storeDigest(t, files, w); g != got {
			t.Errorf("%d workers: digest %s, 1 worker %s", w, g, got)
		}
	}
}

// TestBuildInterrupted: a build stopped in either pass writes nothing into
// the cache but its lock (the spills are unlinked files), and the next
// Open builds the whole store, removing the temporary file a process
// killed while writing the store left.
func TestBuildInterrupted(t *testing.T) {
	files := bigTree(300)
	want := storeDigest(t, files, 2)
	for _, pass := range []string{"first", "second"} {
		t.Run(pass, func(t *testing.T) {
			dir := testtree.Repo(t, files)
			cache := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := Options{CacheDir: cache, Workers: 2}
			if pass == "first" {
				opts.Progress = func(done, total int) {
					if done < total {
						cancel()
					}
				}
			} else {
				ctx = stageprogress.WithFunc(ctx, func(stage string, done, total int) {
					if stage == stageprogress.IndexWrite && done > 0 {
						cancel()
					}
				})
			}
			if _, err := Open(ctx, dir, opts); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted Open: %v, want context.Canceled", err)
			}
			ents, err := os.ReadDir(cache)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".lock") {
					t.Errorf("left in the cache: %s", e.Name())
				}
			}
			store := filepath.Join(cache, cacheName(dir))
			stale := filepath.Join(cache, "."+filepath.Base(store)+"-12345")
			if err := os.WriteFile(stale, []byte("torn"), 0o600); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
			if err != nil {
				t.Fatal(err)
			}
			if ix.Stats.Scanned != len(files) {
				t.Errorf("stats %+v", ix.Stats)
			}
			if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("stale temporary file kept: %v", err)
			}
			b, err := os.ReadFile(store)
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
				t.Errorf("store after the interruption differs from a fresh build")
			}
		})
	}
}

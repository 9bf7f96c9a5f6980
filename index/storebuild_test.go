package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

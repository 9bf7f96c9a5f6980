package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestCacheRoundTrip: what is written is read back identically (bodies
// aside), with shared guard lists.
func TestCacheRoundTrip(t *testing.T) {
	src := "static inline int f(int a)\n{\n\tif (a) {\n\t\tg(a, b);\n\t\th();\n\t}\n\treturn k(a);\n}\nSYSCALL_DEFINE1(x, int, a)\n{\n\tswitch (a) {\n\tcase 1:\n\t\treturn y();\n\t}\n\treturn 0;\n}\n"
	f := cscan.ScanFile("a.c", []byte(src))
	path := filepath.Join(t.TempDir(), "c.bin")
	if err := writeCache(path, []fileEntry{{path: "a.c", key: "gabc"}}, []*cscan.File{f}); err != nil {
		t.Fatal(err)
	}
	c, err := readCache(path)
	if err != nil {
		t.Fatal(err)
	}
	got := c.decode("gabc", "a.c")
	if got == nil {
		t.Fatal("record missing")
	}
	// Compare printed forms: empty and nil slices are the same here.
	if len(got.Funcs) != len(f.Funcs) {
		t.Fatalf("round trip: %d funcs, want %d", len(got.Funcs), len(f.Funcs))
	}
	for i := range f.Funcs {
		if g, w := fmt.Sprintf("%+v", *got.Funcs[i]), fmt.Sprintf("%+v", *f.Funcs[i]); g != w {
			t.Fatalf("round trip:\n got %s\nwant %s", g, w)
		}
	}
	if c.decode("gother", "a.c") != nil {
		t.Error("unknown key decoded")
	}
}

// FuzzReadCache: a damaged cache file is an error or decodes to something,
// never a panic.
func FuzzReadCache(f *testing.F) {
	fl := cscan.ScanFile("a.c", []byte("void f(void) { if (x) g(1, 2); return h(); }"))
	path := filepath.Join(f.TempDir(), "seed.bin")
	if err := writeCache(path, []fileEntry{{path: "a.c", key: "gk"}}, []*cscan.File{fl}); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "c.bin")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := readCache(p)
		if err != nil {
			return
		}
		for k := range c.records {
			c.decode(k, "x.c")
		}
	})
}

package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSideRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.side")
	recs := [][][]byte{
		{[]byte("a0"), nil, []byte("a2")},
		nil,
		{[]byte("c0")},
	}
	if err := WriteSide(path, "gen1", len(recs), func(i int) [][]byte { return recs[i] }); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSide(path, "gen1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref  Ref
		want string
	}{
		{MakeRef(0, 0), "a0"},
		{MakeRef(0, 1), ""},
		{MakeRef(0, 2), "a2"},
		{MakeRef(0, 3), ""},
		{MakeRef(1, 0), ""},
		{MakeRef(2, 0), "c0"},
		{MakeRef(3, 0), ""},
	} {
		if got := string(s.Get(tc.ref)); got != tc.want {
			t.Errorf("Get(%d/%d) = %q, want %q", tc.ref.File(), tc.ref.Pos(), got, tc.want)
		}
	}
	if _, err := OpenSide(path, "gen2"); !errors.Is(err, ErrStale) {
		t.Errorf("other generation: %v, want ErrStale", err)
	}
	if _, err := OpenSide(filepath.Join(dir, "missing"), "gen1"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v, want ErrNotExist", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSide(path, "gen1"); err == nil || errors.Is(err, ErrStale) {
		t.Errorf("truncated: %v, want damaged", err)
	}
}

func FuzzSide(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "x.side")
	recs := [][][]byte{{[]byte("a0"), nil}, {[]byte("b0")}}
	if err := WriteSide(path, "g", len(recs), func(i int) [][]byte { return recs[i] }); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, uint64(0))
	f.Add(b[:len(b)/2], uint64(1<<refFileShift))
	f.Fuzz(func(t *testing.T, b []byte, ref uint64) {
		s, err := newSide(memPager(b), "g", "fuzz")
		if err != nil {
			return
		}
		s.Get(Ref(ref))
		s.Get(MakeRef(0, 0))
	})
}

// TestGeneration: the generation names the indexed content: the same
// for the same files, another once a file changes.
func TestGeneration(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	write := func(src string) {
		if err := os.WriteFile(filepath.Join(dir, "a.c"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *Index {
		ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	write("void f(void)\n{\n}\n")
	g1, g2 := open().Generation(), open().Generation()
	if g1 == "" || g1 != g2 {
		t.Fatalf("generations %q and %q of the same tree", g1, g2)
	}
	write("void f(void)\n{\n\tg();\n}\n")
	if g3 := open().Generation(); g3 == g1 {
		t.Error("a changed file keeps the generation")
	}
	ix := open()
	if side := ix.SideName("k"); filepath.Dir(side) != cache || filepath.Ext(side) != ".side" {
		t.Errorf("side name %q", side)
	}
}

// TestPruneOld: writing a store removes what older store versions left
// for the same tree, and keeps the current version's side files, lock
// files and other trees' caches.
func TestPruneOld(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.c"), []byte("void f(void)\n{\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	cur := cacheName(abs)
	tree := strings.SplitN(cur, ".", 2)[0]
	gone := []string{tree + ".bin", tree + ".assign1.gob", tree + ".v1.store", tree + ".v1.summaries-v2-x.side"}
	kept := []string{strings.TrimSuffix(cur, ".store") + ".summaries-v3-x.side", tree + ".bin.lock", "index-0123456789abcdef.bin"}
	for _, f := range append(append([]string(nil), gone...), kept...) {
		if err := os.WriteFile(filepath.Join(cache, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(context.Background(), dir, Options{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	for _, f := range gone {
		if _, err := os.Stat(filepath.Join(cache, f)); !os.IsNotExist(err) {
			t.Errorf("%s kept (%v)", f, err)
		}
	}
	for _, f := range append(kept, cur) {
		if _, err := os.Stat(filepath.Join(cache, f)); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
}

// TestPruneOlderSides: the side files and companions of older versions
// of a kind go; the current and newer versions, other digests, other
// kinds, lock files and other stores' files stay.
func TestPruneOlderSides(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.c"), []byte("void f(void)\n{\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(filepath.Base(ix.SideName("k")), "k.side")
	tests := []struct {
		kind       string
		gone, kept []string
	}{
		{"summaries-v4-abcd",
			[]string{"summaries-v3-abcd.side", "summaries-v3-abcd.members.gob", "summaries-v3-abcd.rdeps.side", "summaries-v1-abcd.rows.gob"},
			[]string{"summaries-v4-abcd.side", "summaries-v5-abcd.side", "summaries-v3-ef01.side", "summaries-v3-abcd.side.lock", "summaries-v3-abcdef.side"}},
		{"typing-v2",
			[]string{"typing-v1.side"},
			[]string{"typing-v2.side", "typing-v1.side.lock", "typing-v10.side", "decls-v1.side"}},
		{"wakeup-sites-v2-8d09",
			[]string{"wakeup-sites-v1-8d09.side"},
			[]string{"wakeup-sites-v1-ffff.side", "sites-v1-8d09.side"}},
		{"unversioned", nil, []string{"unversioned.side"}},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			other := "index-0123456789abcdef.v1." + tc.kind + ".side"
			for _, f := range append(append([]string{other}, tc.gone...), tc.kept...) {
				name := f
				if f != other {
					name = base + f
				}
				if err := os.WriteFile(filepath.Join(cache, name), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if left, err := ix.PruneOlderSides(tc.kind); err != nil || len(left) > 0 {
				t.Fatalf("left %v: %v", left, err)
			}
			for _, f := range tc.gone {
				if _, err := os.Stat(filepath.Join(cache, base+f)); !os.IsNotExist(err) {
					t.Errorf("%s kept (%v)", f, err)
				}
			}
			for _, f := range tc.kept {
				if _, err := os.Stat(filepath.Join(cache, base+f)); err != nil {
					t.Errorf("%s removed: %v", f, err)
				}
			}
			if _, err := os.Stat(filepath.Join(cache, other)); err != nil {
				t.Errorf("another store's %s removed: %v", other, err)
			}
		})
	}
}

package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// TestText: Text gives a view's files as ReadFile does (the patch's text
// of a rescanned file, an error for one the patch deletes), refuses a
// FIFO without blocking on it, and the overlays over one index share what
// they read from disk.
func TestText(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{"a.c": "int a(void) { return 1; }\n", "b.c": "int b(void) { return 2; }\n", "c.h": "#define C 3\n"})
	ix, err := Open(context.Background(), dir, Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.h"), 0o644); err != nil {
		t.Fatal(err)
	}
	ov := ix.Overlay(map[string][]byte{"a.c": []byte("int a(void) { return 9; }\n"), "b.c": nil})
	for _, tt := range []struct {
		view    *Index
		path    string
		want    string
		missing bool
	}{
		{ix, "a.c", "int a(void) { return 1; }\n", false},
		{ov, "a.c", "int a(void) { return 9; }\n", false},
		{ix, "./b.c", "int b(void) { return 2; }\n", false},
		{ov, "b.c", "", true},
		{ov, "c.h", "#define C 3\n", false},
		{ix, "none.c", "", true},
		{ov, "fifo.h", "", true},
	} {
		got, err := tt.view.Text(tt.path)
		if tt.missing {
			if err == nil {
				t.Errorf("Text(%s) = %q; want an error", tt.path, got)
			} else if !errors.Is(err, os.ErrNotExist) && !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Text(%s): %v; want a missing or irregular file", tt.path, err)
			}
			continue
		}
		want, rerr := tt.view.ReadFile(tt.path)
		if err != nil || got != tt.want || rerr != nil || string(want) != got {
			t.Errorf("Text(%s) = %q, %v; want %q (ReadFile: %q, %v)", tt.path, got, err, tt.want, want, rerr)
		}
	}
	// What an overlay read from disk is kept and shared by the overlays
	// over the same index: a file changed on disk behind the index's back
	// is not read again. The tree's own view keeps nothing.
	if err := os.WriteFile(filepath.Join(dir, "c.h"), []byte("#define C 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := ix.Overlay(map[string][]byte{"d.c": []byte("int d;\n")})
	if got, err := other.Text("c.h"); err != nil || got != "#define C 3\n" {
		t.Errorf("another overlay's Text(c.h) after a change on disk = %q, %v; want the text read before", got, err)
	}
	if got, err := ix.Text("c.h"); err != nil || got != "#define C 4\n" {
		t.Errorf("the tree's Text(c.h) after a change on disk = %q, %v; want the file now", got, err)
	}
	if len(ix.text.byKey) != 1 {
		t.Errorf("the index keeps %d files, want the one overlays read from disk (c.h)", len(ix.text.byKey))
	}
}

// TestTextCacheBudget: the cache keeps at most textBudget bytes, dropping
// the least recently used files first, and never a file larger than the
// budget.
func TestTextCacheBudget(t *testing.T) {
	var c textCache
	third := strings.Repeat("x", textBudget/3)
	c.put("a", third)
	c.put("b", third)
	c.put("c", third)
	if _, ok := c.get("a"); !ok || len(c.byKey) != 3 || c.size != int64(3*len(third)) {
		t.Fatalf("after three files: %d kept, %d bytes", len(c.byKey), c.size)
	}
	c.put("d", third) // b is the least recently used now
	if _, ok := c.byKey["b"]; ok || len(c.byKey) != 3 || c.size != int64(3*len(third)) {
		t.Errorf("after a fourth: %v kept (%d bytes); want b dropped", keys(c.byKey), c.size)
	}
	c.put("huge", strings.Repeat("y", textBudget+1))
	if _, ok := c.byKey["huge"]; ok || len(c.byKey) != 3 {
		t.Errorf("a file over the budget: %v kept", keys(c.byKey))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

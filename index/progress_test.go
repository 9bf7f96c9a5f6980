package index

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestOpenProgress: Progress ends with every file done.
func TestOpenProgress(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 300; i++ {
		p := filepath.Join(dir, "d", "f"+string(rune('a'+i%26))+string(rune('a'+i/26))+".c")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("int f(void) { return 0; }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu    sync.Mutex
		calls [][2]int
	)
	ix, err := Open(context.Background(), dir, Options{CacheDir: "-", Progress: func(done, total int) {
		mu.Lock()
		calls = append(calls, [2]int{done, total})
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := ix.Stats.Scanned + ix.Stats.Cached
	if n != 300 || len(calls) < 2 {
		t.Fatalf("%d files, progress calls %v", n, calls)
	}
	seenEnd := false
	for _, c := range calls {
		if c[1] != n || c[0] > n {
			t.Errorf("call %v with %d files", c, n)
		}
		seenEnd = seenEnd || c[0] == n
	}
	if !seenEnd {
		t.Errorf("no final call: %v", calls)
	}
}

package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestCompileSuiteConcurrent: boots prepared at once (runner.concurrency,
// remote backends) compile the same suite dir without tripping over each
// other's temporary files.
func TestCompileSuiteConcurrent(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	tests, err := SelectTests([]string{"syscall_exercise"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	outs := make([]string, 4)
	errs := make([]error, 4)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = compileSuite(context.Background(), dir, tests)
		}()
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("compile %d: %v", i, errs[i])
		}
		if outs[i] != outs[0] {
			t.Errorf("compile %d: dir %s, want %s", i, outs[i], outs[0])
		}
	}
	for _, name := range []string{"init", "syscall_exercise"} {
		if st, err := os.Stat(filepath.Join(outs[0], name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

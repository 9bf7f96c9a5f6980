package testkernel

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPrepareHasPipe(t *testing.T) {
	dir := Dir(t)
	if _, err := os.Stat(filepath.Join(dir, "fs", "pipe.c")); err != nil {
		t.Fatalf("fs/pipe.c missing from %s: %v", dir, err)
	}
}

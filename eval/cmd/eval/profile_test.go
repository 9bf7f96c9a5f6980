package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProfiles: -cpuprofile and -memprofile write pprof profiles (gzip),
// and a profile that cannot be created is an error, not a run without it.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, heap := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "heap.prof")
	stop, err := startCPUProfile(cpu)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if err := writeHeap(heap); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cpu, heap} {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("%s: %d bytes, %v; want a gzip profile", filepath.Base(p), len(b), err)
		}
	}
	missing := filepath.Join(dir, "none", "x.prof")
	if _, err := startCPUProfile(missing); err == nil {
		t.Error("a CPU profile in a missing directory started")
	}
	if err := writeHeap(missing); err == nil {
		t.Error("a heap profile in a missing directory was written")
	}
}

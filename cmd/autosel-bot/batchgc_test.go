package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestMemoryAvailable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	meminfo := write("meminfo", "MemTotal:       24576000 kB\nMemFree:         1000 kB\n")
	tests := []struct {
		name            string
		meminfo, cgroup string
		want            int64
	}{
		{"machine", meminfo, filepath.Join(dir, "none"), 24576000 << 10},
		{"cgroup below", meminfo, write("max1", "4294967296\n"), 4 << 30},
		{"cgroup unbounded", meminfo, write("max2", "max\n"), 24576000 << 10},
		{"cgroup above", meminfo, write("max3", "99999999999999\n"), 24576000 << 10},
		{"no meminfo", filepath.Join(dir, "none"), write("max4", "4294967296\n"), 0},
		{"damaged meminfo", write("bad", "MemTotal: lots kB\n"), "", 0},
		{"no MemTotal", write("short", "MemFree: 10 kB\n"), "", 0},
	}
	for _, tc := range tests {
		if got := memoryAvailable(tc.meminfo, tc.cgroup); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestBatchGC: several patches against a tree raise the collector's goal
// and set a soft limit, and the returned function restores both; one
// patch against a tree sets treeMemoryLimit alone; no tree or GOGC in the
// environment change nothing.
func TestBatchGC(t *testing.T) {
	percent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	t.Setenv("GOMEMLIMIT", "")
	os.Unsetenv("GOMEMLIMIT")
	if memoryAvailable("/proc/meminfo", "/sys/fs/cgroup/memory.max") <= 0 {
		t.Skip("no /proc/meminfo")
	}
	unchanged := func(what string) {
		t.Helper()
		if p := debug.SetGCPercent(100); p != 100 {
			t.Errorf("%s: GC percent %d", what, p)
		}
		if l := debug.SetMemoryLimit(-1); l != limit {
			t.Errorf("%s: memory limit %d, want %d", what, l, limit)
		}
	}
	restore := batchGC(1, true)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("one patch: GC percent %d", p)
	}
	if l, want := debug.SetMemoryLimit(-1), min(int64(treeMemoryLimit), memoryAvailable("/proc/meminfo", "/sys/fs/cgroup/memory.max")/4*3); l != want {
		t.Errorf("one patch: memory limit %d, want %d", l, want)
	}
	restore()
	unchanged("one patch, restored")
	restore = batchGC(20, false)
	unchanged("no tree")
	restore()
	restore = batchGC(20, true)
	if p := debug.SetGCPercent(batchGCPercent); p != batchGCPercent {
		t.Errorf("20 patches: GC percent %d, want %d", p, batchGCPercent)
	}
	// batchMemoryLimit, or three quarters of the memory when lower.
	if mem := memoryAvailable("/proc/meminfo", "/sys/fs/cgroup/memory.max"); mem > 0 {
		if l, want := debug.SetMemoryLimit(-1), min(int64(batchMemoryLimit), mem/4*3); l != want {
			t.Errorf("20 patches: memory limit %d, want %d", l, want)
		}
	} else if l := debug.SetMemoryLimit(-1); l <= 0 || l == limit {
		t.Errorf("20 patches: memory limit %d", l)
	}
	restore()
	unchanged("restored")
	t.Setenv("GOGC", "150")
	restore = batchGC(20, true)
	unchanged("GOGC set")
	restore()
	restore = batchGC(1, true)
	unchanged("GOGC set, one patch")
	restore()
}

// TestCollectorFor: a batch on a machine whose memory cannot be read, or
// a single patch, gets the tree limit and Go's default goal; a batch on a
// small machine gets three quarters of its memory, a big one
// batchMemoryLimit.
func TestCollectorFor(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct {
		name    string
		patches int
		mem     int64
		limit   int64
		percent int
	}{
		{"batch, memory unknown", 20, 0, treeMemoryLimit, 100},
		{"one patch", 1, 64 << 30, treeMemoryLimit, 100},
		{"one patch, small machine", 1, 1 << 30, 3 << 28, 100},
		{"batch, big machine", 20, 64 << 30, batchMemoryLimit, batchGCPercent},
		{"batch, small machine", 20, 2 << 30, 3 << 29, batchGCPercent},
	}
	for _, tt := range tests {
		restore := collectorFor(tt.patches, tt.mem)
		if l := debug.SetMemoryLimit(-1); l != tt.limit {
			t.Errorf("%s: memory limit %d, want %d", tt.name, l, tt.limit)
		}
		p := debug.SetGCPercent(-1) // reads it (and turns the collector off)
		debug.SetGCPercent(p)
		if p != tt.percent {
			t.Errorf("%s: GC percent %d, want %d", tt.name, p, tt.percent)
		}
		restore()
	}
}

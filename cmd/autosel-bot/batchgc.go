package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// batchGCPercent is the collector's goal (GOGC) while check analyses
// several patches against a tree.
const batchGCPercent = 400

// treeMemoryLimit is the soft limit of the heap (runtime/debug) while one
// patch is checked against a tree, or a tree is indexed: the first run over
// a tree builds its whole-tree summaries, whose live heap peaks at 1.25 GB
// for Linux 6.1 (their records wait on disk, sumstore's spill.go). At this
// limit the summaries stage took 112 s and 140 s of CPU, peaking at 1.45
// GB; at 2 GiB it took 99 s and 110 s of CPU, and 1.98 GB (before the
// records left memory, the live heap neared 2 GB, and at 1.25 GiB the
// collector ran all the time). A warm run's heap (about 300 MB) never
// reaches it.
const treeMemoryLimit = 1400 << 20

// batchMemoryLimit caps the soft limit while check analyses several
// patches against a tree. It leaves room for the tree's caches (eval/
// checks its 750 patches in one process within 2.25 GiB), and keeps a
// first run's summaries from growing the heap to the five times live that
// GOGC=400 allows: without it, the first check of seed 002 (4 patches)
// peaked at 7.5 GB in 114 s; within a 2.5 GiB limit it took 94 s and 2.5
// GB (this cap leaves half a GiB more for larger trees).
const batchMemoryLimit = 3 << 30

// batchGC makes the garbage collector trade memory for time while check
// analyses several patches against a tree: between collections the heap
// may grow to five times what is live (GOGC=400) instead of twice, within
// a soft limit of batchMemoryLimit, or three quarters of the memory the
// process may use (the machine's, or its cgroup's) when that is lower.
// Most of what such a run keeps live is the tree's caches, which every
// patch reuses and every collection marks again. One patch keeps Go's
// default goal, so its resident memory stays small, under
// treeMemoryLimit (treeGC); so does a batch on a machine whose memory
// cannot be read. GOGC or GOMEMLIMIT in the environment leave the
// collector as they set it. The returned function restores the settings.
func batchGC(patches int, tree bool) (restore func()) {
	if !tree || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	return collectorFor(patches, memoryAvailable("/proc/meminfo", "/sys/fs/cgroup/memory.max"))
}

// collectorFor is batchGC for a tree run of patches on a machine with mem
// bytes of memory (0: unknown).
func collectorFor(patches int, mem int64) (restore func()) {
	if patches < 2 || mem <= 0 {
		return treeLimit(mem)
	}
	oldLimit := debug.SetMemoryLimit(min(int64(batchMemoryLimit), mem/4*3))
	oldPercent := debug.SetGCPercent(batchGCPercent)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// treeGC sets treeMemoryLimit as the heap's soft limit (three quarters of
// the memory when that is lower), unless GOGC or GOMEMLIMIT is set in the
// environment; the returned function restores the limit.
func treeGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	return treeLimit(memoryAvailable("/proc/meminfo", "/sys/fs/cgroup/memory.max"))
}

// treeLimit sets treeMemoryLimit, or three quarters of mem when that is
// lower (mem 0: unknown), as the heap's soft limit.
func treeLimit(mem int64) (restore func()) {
	limit := int64(treeMemoryLimit)
	if mem > 0 {
		limit = min(limit, mem/4*3)
	}
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old) }
}

// memoryAvailable returns the bytes of memory the process may use: the
// MemTotal of meminfo, or the cgroup's memory.max when that is a lower
// number; 0 when meminfo cannot be read.
func memoryAvailable(meminfo, cgroupMax string) int64 {
	b, err := os.ReadFile(meminfo)
	if err != nil {
		return 0
	}
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb <= 0 {
				return 0
			}
			total = kb << 10
			break
		}
	}
	if c, err := os.ReadFile(cgroupMax); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(c)), 10, 64); err == nil && n > 0 && n < total {
			total = n
		}
	}
	return total
}

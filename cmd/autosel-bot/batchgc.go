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

// batchGC makes the garbage collector trade memory for time while check
// analyses several patches against a tree: between collections the heap
// may grow to five times what is live (GOGC=400) instead of twice, within
// a soft limit of three quarters of the memory the process may use (the
// machine's, or its cgroup's when lower): a limit below what is live
// would make the collector run all the time. Most of what such a run keeps
// live is the tree's caches, which every patch reuses and every
// collection marks again. One patch keeps Go's default, so its resident
// memory stays small; so does a machine whose memory cannot be read.
// GOGC or GOMEMLIMIT in the environment leave the collector as they set
// it. The returned function restores the settings.
func batchGC(patches int, tree bool) (restore func()) {
	if patches < 2 || !tree || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	mem := memoryAvailable("/proc/meminfo", "/sys/fs/cgroup/memory.max")
	if mem <= 0 {
		return func() {}
	}
	oldLimit := debug.SetMemoryLimit(mem / 4 * 3)
	oldPercent := debug.SetGCPercent(batchGCPercent)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
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

package cscan

import "strings"

// PickDefs picks the definitions a call from fromFile reaches among fns:
// the one in the same file, else the global ones (at most 8) on the same
// side of the kernel/host-program line (HostProgram) as fromFile.
func PickDefs(fns []*Func, fromFile string) []*Func {
	var same, global []*Func
	world := HostProgram(fromFile)
	for _, fn := range fns {
		switch {
		case fn.File == fromFile:
			same = append(same, fn)
		case (!fn.Static || strings.HasSuffix(fn.File, ".h")) && HostProgram(fn.File) == world:
			global = append(global, fn)
		}
	}
	if len(same) > 0 {
		return same[:1]
	}
	if len(global) > 8 {
		global = global[:8]
	}
	return global
}

// hostDirs are the tree's directories of programs that run outside the
// kernel (tools and their test harnesses, build helpers, examples in the
// documentation).
var hostDirs = []string{"tools/", "scripts/", "usr/", "Documentation/"}

// kernelModuleDirs are the directories under hostDirs that hold kernel
// modules (test modules built against the kernel), not host programs.
var kernelModuleDirs = []string{"tools/testing/nvdimm/", "tools/testing/cxl/",
	"tools/testing/selftests/bpf/bpf_testmod/", "tools/testing/selftests/livepatch/test_modules/"}

// HostProgram returns the directory of programs outside the kernel that a
// tree-relative path belongs to ("tools/"), "" for kernel code (the test
// modules of kernelModuleDirs included). Kernel code and host programs
// never call each other, whatever names they share
// (tools/testing/radix-tree defines its own kmem_cache_create()).
func HostProgram(path string) string {
	for _, d := range kernelModuleDirs {
		if strings.HasPrefix(path, d) {
			return ""
		}
	}
	for _, d := range hostDirs {
		if strings.HasPrefix(path, d) {
			return d
		}
	}
	return ""
}

package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// archOf returns the architecture directory a path belongs to
// ("arch/m68k/"), "" for generic code.
func archOf(path string) string {
	if !strings.HasPrefix(path, "arch/") {
		return ""
	}
	rest := path[len("arch/"):]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return ""
	}
	return path[:len("arch/")+i+1]
}

// SameBuild reports whether a call in callerFile can reach a definition
// in calleeFile in some build: not when the two are in different
// architectures' directories (arch/um's fatal_sigsegv() calls um's
// do_signal(), never arc's), nor when one is kernel code and the other a
// host program (cscan.HostProgram).
func SameBuild(callerFile, calleeFile string) bool {
	if cscan.HostProgram(callerFile) != cscan.HostProgram(calleeFile) {
		return false
	}
	a, b := archOf(callerFile), archOf(calleeFile)
	return a == "" || b == "" || a == b
}

// buildable drops the definitions a call from fromFile cannot reach in any
// one build: a function defined both in generic code and in an
// architecture's directory (gpio_free() in drivers/gpio/ and in
// arch/m68k/include/asm/mcfgpio.h) resolves, from generic code, to the
// generic definition on every architecture but that one; from a file of
// one architecture, the definitions of the other architectures never
// apply, even when nothing else is left (the architecture's own version
// is a macro or assembly the index does not hold: parisc's
// flush_tlb_page() never reaches arch/um's): the call then reaches no
// definition. Config stubs go too when a real definition is left
// (configStub). From generic code, when only architectures' definitions
// exist (setup_arch()), every one is kept.
func buildable(defs []*cscan.Func, fromFile string) []*cscan.Func {
	own := archOf(fromFile)
	if len(defs) < 2 && (own == "" || len(defs) == 0) {
		return defs
	}
	var out []*cscan.Func
	for _, fn := range defs {
		if a := archOf(fn.File); a == "" || a == own {
			out = append(out, fn)
		}
	}
	if len(out) == 0 {
		if own != "" {
			return nil
		}
		return defs
	}
	return dropConfigStubs(out)
}

// configStub reports whether fn is the stand-in a header defines for
// builds without a feature: a static inline function in a header that
// calls nothing but the error-pointer helpers and warnings
// ("static inline int iommu_map(...) { return -ENODEV; }" under #ifndef
// CONFIG_IOMMU_API, "static inline struct clk *of_clk_get(...) { return
// ERR_PTR(-ENOENT); }" under !CONFIG_COMMON_CLK), outside arch/ (an
// architecture's own header definition is its real one). The scanner keeps
// both sides of an #if, so the stub and the real definition are both in
// the index.
func configStub(fn *cscan.Func) bool {
	if !fn.Static || !strings.HasSuffix(fn.File, ".h") || archOf(fn.File) != "" {
		return false
	}
	for _, c := range fn.Calls {
		if !stubCall(c.Name) {
			return false
		}
	}
	return true
}

// stubCall reports whether a call named name is one a config stub makes:
// an error-pointer helper or a warning (WARN_ON_ONCE(1), BUILD_BUG()).
// Other upper-case macros are not: READ_ONCE()/WRITE_ONCE() are the whole
// body of real inlines (list_empty()).
func stubCall(name string) bool {
	switch name {
	case "ERR_PTR", "ERR_CAST", "PTR_ERR", "IS_ERR", "IS_ERR_OR_NULL":
		return true
	}
	for _, p := range []string{"WARN", "BUG", "BUILD_BUG"} {
		if strings.HasPrefix(name, p) && isUpperName(name) {
			return true
		}
	}
	return false
}

// DropConfigStubs returns defs without the config stubs among them
// (configStub), unless all of them are: a helper's real definition, not
// the header's "{}" for builds without the feature.
func DropConfigStubs(defs []*cscan.Func) []*cscan.Func { return dropConfigStubs(defs) }

// dropConfigStubs drops the config stubs among defs when a real
// definition is left: code that calls a feature's function is built with
// the feature (or the call does nothing), so what the call may do is what
// the real definition does.
func dropConfigStubs(defs []*cscan.Func) []*cscan.Func {
	n := 0
	for _, fn := range defs {
		if !configStub(fn) {
			n++
		}
	}
	if n == 0 || n == len(defs) {
		return defs
	}
	out := make([]*cscan.Func, 0, n)
	for _, fn := range defs {
		if !configStub(fn) {
			out = append(out, fn)
		}
	}
	return out
}

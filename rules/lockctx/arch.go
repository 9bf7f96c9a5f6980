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

// buildable drops the definitions a call from fromFile cannot reach in any
// one build: a function defined both in generic code and in an
// architecture's directory (gpio_free() in drivers/gpio/ and in
// arch/m68k/include/asm/mcfgpio.h) resolves, from generic code, to the
// generic definition on every architecture but that one; from a file of
// one architecture, the definitions of the other architectures never
// apply. When nothing remains, every definition is kept.
func buildable(defs []*cscan.Func, fromFile string) []*cscan.Func {
	if len(defs) < 2 {
		return defs
	}
	own := archOf(fromFile)
	var out []*cscan.Func
	for _, fn := range defs {
		if a := archOf(fn.File); a == "" || a == own {
			out = append(out, fn)
		}
	}
	if len(out) == 0 {
		return defs
	}
	return out
}

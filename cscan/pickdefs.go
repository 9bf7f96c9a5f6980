package cscan

import "strings"

// PickDefs picks the definitions a call from fromFile reaches among fns:
// the one in the same file, else the global ones (at most 8).
func PickDefs(fns []*Func, fromFile string) []*Func {
	var same, global []*Func
	for _, fn := range fns {
		switch {
		case fn.File == fromFile:
			same = append(same, fn)
		case !fn.Static || strings.HasSuffix(fn.File, ".h"):
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

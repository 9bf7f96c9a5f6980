package registrations

import (
	"strings"
)

// A driver or a subsystem often installs a callback for its caller: a DMA
// helper that sets txdesc->callback = callback from its parameter, a
// conntrack helper initialiser that sets helper->help = help, a driver's
// own URB helper that sets urb->complete = complete. The member is one of
// a member row's (dma_async_tx_descriptor.callback runs from the DMA
// engine's tasklet), so the function passed for that parameter runs in
// the row's context: the helper is a registration wrapper of the row, as
// a function passing its parameter to request_irq() is (wrappers.go).

// memberWrappers returns the rows of the functions that store one of their
// parameters in a member of a member row's struct type.
func (t *Table) memberWrappers(seen map[string]bool) []Callback {
	var out []Callback
	for i := range t.callbacks {
		row := &t.callbacks[i]
		if row.Struct == "" || row.HeldFrom != "" || row.Kind == "" || len(row.Unless) > 0 || len(row.Only) > 0 || len(row.OnlyCalls) > 0 {
			continue
		}
		for _, m := range row.Members {
			for _, a := range t.ix.AssignsTo(m) {
				if a.Base == "" || a.Struct != "" && a.Struct != row.Struct {
					continue
				}
				fn := t.ix.File(a.File).FuncAt(a.Line)
				if fn == nil || seen[fn.Name] {
					continue
				}
				j := t.typ.ParamIndex(fn, a.Func)
				if j < 0 || t.typ.ExprTag(a.Base, fn) != row.Struct {
					continue
				}
				seen[fn.Name] = true
				w := *row
				w.Names, w.Arg, w.ArgOf, w.Prefix, w.ArgHas, w.Param = []string{fn.Name}, j, nil, nil, ArgText{}, a.Func
				w.Struct, w.Members, w.Init, w.Container, w.Via, w.Array, w.Decl = "", nil, nil, nil, "", false, false
				w.Why = row.Why + " (" + fn.Name + "() stores its " + a.Func + " in " + row.Struct + "." + m + ")"
				w.file = ""
				if fn.Static && !strings.HasSuffix(fn.File, ".h") {
					w.file = fn.File
				}
				out = append(out, w)
			}
		}
	}
	return out
}

package sleep

import (
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// interruptKinds are the context kinds in which in_interrupt() is true:
// hard and soft interrupt context, and bottom halves disabled (the
// softirq count of preempt_count is raised by local_bh_disable()).
var interruptKinds = map[string]bool{"hardirq": true, "softirq": true, "bh": true}

// interruptSafe reports whether sleeping primitive prim, reached with the
// contexts of st, does not sleep there: it is one of the table's
// interrupt_safe primitives (vfree() defers the free to a work item when
// in_interrupt()) and st holds an interrupt context on every path (a
// _bh lock included).
// Under a plain spinlock in process context such a primitive still may
// sleep.
func (r *checker) interruptSafe(prim string, st lockctx.State) bool {
	if !slices.Contains(r.interruptSafePrims, prim) {
		return false
	}
	for _, h := range st.Held {
		if h.Must && (interruptKinds[h.Kind] || bhVariant(h)) {
			return true
		}
	}
	return false
}

// bhVariant reports whether a lock was taken with a _bh variant
// (spin_lock_bh(), read_lock_bh()): the lock model keeps its lock kind,
// but bottom halves are off under it too.
func bhVariant(h lockctx.Held) bool {
	return strings.HasSuffix(h.AcquiringCall(), "_bh")
}

package sleep

import (
	"slices"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

func heldBy(kind, call string) lockctx.Held {
	return lockctx.Held{Kind: kind, Key: "k", At: report.Step{What: call}}
}

func TestHeldKinds(t *testing.T) {
	for _, c := range []struct {
		held []lockctx.Held
		want []string
	}{
		{[]lockctx.Held{heldBy("spin", "spin_lock(&d->lock)")}, []string{"spin"}},
		{[]lockctx.Held{heldBy("spin", "spin_lock_bh(&d->lock)")}, []string{"spin", "bh"}},
		{[]lockctx.Held{heldBy("spin", "spin_lock_irqsave(&d->lock, flags)")}, []string{"spin", "irq"}},
		{[]lockctx.Held{heldBy("raw_spin", "raw_spin_lock_irq(&d->lock)")}, []string{"raw_spin", "irq"}},
		{[]lockctx.Held{heldBy("spin", "guard(spinlock_irqsave)(&d->lock)")}, []string{"spin", "irq"}},
		{[]lockctx.Held{heldBy("rcu", "rcu_read_lock()"), heldBy("spin", "spin_lock(&x)")}, []string{"rcu", "spin"}},
		{[]lockctx.Held{heldBy("spin", "spin_lock_irqsave_nested(&d->lock, flags, 1)")}, []string{"spin", "irq"}},
		{[]lockctx.Held{heldBy("spin", "scoped_guard(spinlock_bh, &d->lock)")}, []string{"spin", "bh"}},
		{[]lockctx.Held{{Kind: "spin", Key: "k", At: report.Step{What: "calls cm_lock()"},
			Via: []report.Step{{What: "spin_lock_bh(&d->lock)"}}}}, []string{"spin", "bh"}},
		{[]lockctx.Held{heldBy("spin", "calls cm_lock()")}, []string{"spin"}},
	} {
		if got := heldKinds(c.held); !slices.Equal(got, c.want) {
			t.Errorf("heldKinds(%v) = %v, want %v", c.held, got, c.want)
		}
	}
}

func TestReachesUnder(t *testing.T) {
	var tb tables
	tb.Alloc = map[string]int{"kmalloc": 1}
	tb.GFPSleep = []string{"GFP_KERNEL", "GFP_NOIO"}
	tb.GFPAtomic = []string{"GFP_ATOMIC", "GFP_NOWAIT"}
	tb.ContextTests = []contextTestRow{
		{Name: "in_interrupt", TrueUnder: []string{"hardirq", "softirq", "bh"}},
		{Name: "in_task", FalseUnder: []string{"hardirq", "softirq"}},
		{Name: "preemptible", FalseUnder: []string{"spin", "bh", "irq"}},
	}
	m, err := newSleeper(&tb)
	if err != nil {
		t.Fatal(err)
	}
	spin := []lockctx.Held{heldBy("spin", "spin_lock(&l)")}
	bh := []lockctx.Held{heldBy("spin", "spin_lock_bh(&l)")}
	c := cscan.Call{Name: "kmalloc", Args: []string{"n", "x"}}
	for _, tc := range []struct {
		expr     string
		held     []lockctx.Held
		assigned bool
		want     bool
	}{
		{"in_interrupt() ? GFP_ATOMIC : GFP_KERNEL", spin, false, true},
		{"in_interrupt() ? GFP_ATOMIC : GFP_KERNEL", bh, false, false},
		{"!in_interrupt() ? GFP_KERNEL : GFP_ATOMIC", spin, false, true},
		{"unlikely(in_interrupt()) ? GFP_ATOMIC : GFP_NOIO", spin, false, true},
		{"in_task() ? GFP_KERNEL : GFP_ATOMIC", spin, false, true},
		{"preemptible() ? GFP_KERNEL : GFP_ATOMIC", spin, false, false},
		{"in_atomic() ? GFP_ATOMIC : GFP_KERNEL", spin, false, false}, // not a row here: decides nothing
		{"GFP_KERNEL", spin, false, false},
		{"dev->atomic ? GFP_ATOMIC : GFP_KERNEL", spin, false, false},
		{"in_interrupt() ? GFP_ATOMIC : GFP_KERNEL", spin, true, false}, // stored where other locks may be held
		{"in_task() ? GFP_KERNEL : GFP_ATOMIC", spin, true, true},       // the same wherever it was taken
	} {
		if _, got := m.ReachesUnder(c, tc.expr, tc.held, tc.assigned); got != tc.want {
			t.Errorf("ReachesUnder(%q) = %v, want %v", tc.expr, got, tc.want)
		}
	}
}

func TestCompileContextTestsRejects(t *testing.T) {
	for _, rows := range [][]contextTestRow{
		{{Name: "in_irq"}},
		{{Name: "in_irq", TrueUnder: []string{"hardirq"}, FalseUnder: []string{"spin"}}},
		{{Name: "in_irq", TrueUnder: []string{"interrupt"}}},
	} {
		var m sleeper
		if err := m.compileContextTests(rows); err == nil {
			t.Errorf("compileContextTests(%v): no error", rows)
		}
	}
}

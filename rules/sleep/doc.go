// Package sleep is the sleep-in-atomic rule family: sleeping calls that a
// patch brings into atomic context (spinlocks, rwlocks, RCU read-side
// sections, irq/bh/preempt disabled), with the call chain.
//
// It is a client of rules/lockctx: its table section (rules/tables/
// sleep.yaml) holds the engine's context primitives and the sleeping ones,
// and the engine's Target is "may sleep" (tables.go). sleep.go runs the
// three checks over each touched function: forward (new sleeping events in
// atomic context, compared with the old version), reverse (a function that
// newly may sleep, walked up its callers with a tree) and lock helpers
// that now return in atomic context (their callers' regions re-checked);
// report.go renders the findings. Case files are in testdata/cases.
package sleep

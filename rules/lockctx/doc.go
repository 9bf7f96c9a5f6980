// Package lockctx is the atomic-context engine shared by rule families:
// which spinlocks, rwlocks, RCU read-side sections and irq/bh/preempt-off
// regions are held at each call of a function, path-sensitively over the
// cscan statement tree (model.go: the context primitives of a family's
// table; state.go: the held set and path merging; walk.go: the statement
// walker; summary.go: callee resolution and klint-style summaries, which
// give each function's effect on its caller's contexts and whether it may
// reach the family's Target with nothing of its own held).
//
// A rule builds a Model from its table section and Target, a Resolver per
// view (pre- or post-patch) and calls Walk, whose Visit reports the
// contexts held at each call site. Nothing here is specific to sleeping:
// the sleep rule's Target is "may sleep".
package lockctx

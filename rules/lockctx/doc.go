// Package lockctx is the atomic-context engine shared by rule families:
// which spinlocks, rwlocks, RCU read-side sections and irq/bh/preempt-off
// regions are held at each call of a function, path-sensitively over the
// cscan statement tree (model.go: the atomic kinds of the lock model,
// rules/lockmodel, and a family's callbacks and target; state.go: the held set and path merging; walk.go: the statement
// walker; summary.go: callee resolution and klint-style summaries, which
// give each function's effect on its caller's contexts and whether it may
// reach the family's Target with nothing of its own held, computed to a
// fixpoint with no depth limit (flatsummary.go: a summary from the call
// list; refine.go: its effects path-sensitively from the statement tree); share.go: summaries independent of the
// patch, shared between patches when there is no store; sumstore.go,
// sumcodec.go, reccache.go, sumvalid.go and climb.go: the whole tree
// summarised once by Prepare and stored beside the index, and which stored
// summaries still hold under a patch (climb.go: the climb up the reverse
// deps from what the patch changes), with sumpair.go (a rescanned file's unchanged
// functions keep theirs), structdep.go (struct definitions a summary
// typed with) and refset.go (the dirty closure); typingstore.go: each
// file's struct definitions and #include directives, and each function's
// struct-typed declarations, stored beside the index by Prepare;
// srclines.go: source files by line; pointer.go: calls through struct
// members resolved from the index's assignment table; implicit.go: the
// contexts a callback runs in because of how it is registered, or, for a
// held_from row (seq_operations.show), what a sibling member's function
// returns holding, and what a function's own calls register (Registered,
// for a patch that changes a registration; the registrations found
// tree-wide in regsites.go), with declreg.go for
// declaration macros such as DEFINE_TIMER, memberarg.go for callbacks
// read from a table's member (request_irq(irq, desc->handler)) and
// wrappers.go for functions passing a callback parameter on to a
// registration; paramcall.go: a function passed by name to a callee that
// calls that parameter runs in the call's context, and in what the callee
// holds where it calls it (ParamCallHeld: a walker's own lock); argreach.go: reaches
// that depend on a parameter's value, such as a gfp_t passed down, and
// contract.go: a gfp_t parameter of a function pointer is its interface's
// contract; structs.go and types.go: struct types of member chains
// (hw->phy.ops, card->isac) from the struct definitions visible from the
// caller's file; sigmatch.go: plainly assigned members matched by argument
// types; addrassigns.go: "&func" initializers; filetarget.go: primitives
// that reach the target depending on the calling file; arch.go: another
// architecture's definition of a function, or a header's config stub, does
// not hide the real one). Calls into code written to run in any context
// (Tables.AnyContext: sanitizers, lockdep) are not followed. The locks
// and atomic contexts are the lock model's (rules/lockmodel); the engine
// keeps its atomic kinds.
//
// A rule builds a Model from its table section and Target, a Resolver per
// view (pre- or post-patch) and calls Walk, whose Visit reports the
// contexts held at each call site. Nothing here is specific to sleeping:
// the sleep rule's Target is "may sleep".
package lockctx

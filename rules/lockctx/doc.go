// Package lockctx is the atomic-context engine shared by rule families:
// which spinlocks, rwlocks, RCU read-side sections and irq/bh/preempt-off
// regions are held at each call of a function, path-sensitively over the
// cscan statement tree, and klint-style summaries of every function's
// effect on its caller. Nothing here is specific to sleeping: the sleep
// rule's Target is "may sleep".
//
// A rule builds a Model from its table section and Target, a Resolver per
// view (pre- or post-patch) and calls Walk, whose Visit reports the
// contexts held at each call site.
//
// The files, by concern:
//
// The engine.
//   - model.go: the atomic kinds of the lock model (rules/lockmodel), a
//     family's callbacks and target; state.go: the held set and path
//     merging; walk.go: the statement walker.
//   - summary.go: the Resolver, callee resolution and summaries, which give
//     each function's effect on its caller's contexts and whether it may
//     reach the Target with nothing of its own held, computed to a
//     fixpoint with no depth limit; flatsummary.go: a summary from the call
//     list; refine.go: its effects path-sensitively from the statement
//     tree; sharedsummaries.go: summaries independent of the patch, shared
//     between patches when there is no store.
//   - argreach.go: reaches that depend on a parameter's value (a gfp_t
//     passed down); contract.go: a gfp_t parameter of a function pointer is
//     its interface's contract; paramcall.go: a function passed by name to
//     a callee that calls that parameter runs in the call's context
//     (ParamCallHeld); filetarget.go: primitives that reach the target
//     depending on the calling file; arch.go: another architecture's
//     definition of a function, or a header's config stub, does not hide
//     the real one. Calls into code written to run in any context
//     (Tables.AnyContext: sanitizers, lockdep) are not followed.
//
// The stored summaries and their invalidation.
//   - summarystore.go: the whole tree summarised once by Prepare and stored
//     beside the index, with what each summary was computed from;
//     summarycodec.go: the record encoding; recordcache.go: the decoded
//     records kept in memory.
//   - storeinvalidation.go: which stored summaries still hold under a
//     patch; storeclimb.go: the climb up the reverse deps from what the
//     patch changes; unchangedfuncs.go: a rescanned file's unchanged
//     functions keep theirs; structchanges.go: the struct definitions a
//     summary typed with, as a dependency; dirtyset.go: the dirty closure
//     as a bit set. The records' byte encoding is package wire.
//
// Calls through struct members; the struct types themselves are package
// typing (a Typer per resolver, whose look-ups noteMember records as
// dependencies), over the text layer of package ctype.
//   - pointer.go: calls through struct members resolved from the index's
//     assignment table; signaturematch.go: plainly assigned members matched
//     by argument types; addrassigns.go: "&func" initializers.
//
// Callback registrations and implicit contexts.
//   - implicit.go: the contexts a callback runs in because of how it is
//     registered (member rows typed through nested designated
//     initializers too, typing.InitTag), or, for a held_from row
//     (seq_operations.show), what a sibling member's function returns
//     holding, or, for a container row, how it recovers its object
//     (from_tasklet()/from_timer() on its only parameter), and what a function's
//     own calls register (Registered, for a patch that changes a
//     registration). The registrations themselves are found by package
//     registrations (a Table per resolver): registration calls tree-wide,
//     declaration macros such as DEFINE_TIMER, callbacks read from a
//     table's member, functions passing a callback parameter on to a
//     registration.
package lockctx

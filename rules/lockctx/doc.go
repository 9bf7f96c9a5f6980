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
//     merging; walk.go: the statement walker (loops.go: the loops it and
//     the flat summary take as always entered); lockwalk.go: a model of the
//     lock table alone (CompileLocks), for rules that walk a function for
//     the locks it holds (rules/wakeup).
//   - summary.go: the Resolver, callee resolution and summaries, which give
//     each function's effect on its caller's contexts and whether it may
//     reach the Target with nothing of its own held, computed to a
//     fixpoint with no depth limit (the values themselves, Summary, Effect,
//     Reach and ArgReach, and their encoding are package summary);
//     component.go: recursive components, summarised in rounds (a
//     function that reads a member's provisional summary is a member);
//     flatsummary.go: a summary from the call list; refine.go: its effects
//     path-sensitively from the statement tree; sharedsummaries.go:
//     summaries independent of the patch, shared between patches when
//     there is no store (the resolver's taint tracking, on its stack).
//   - argreach.go: reaches that depend on a parameter's value (a gfp_t
//     passed down, also or-ed with flags: PassThrough); argguard.go: a
//     guard that tests that very parameter (gfpflags_allow_blocking(gfp),
//     gfp & __GFP_DIRECT_RECLAIM) keeps the reach as one on the parameter
//     instead of dropping it as conditional (ArgGuard); flagcond.go: reaches taken only for some values of
//     a flag parameter (if (can_sleep) ... else defer), the condition
//     decided by a constant argument (a literal, or a macro such as
//     CAN_SLEEP) and carried up through a caller's own parameter; contract.go: a gfp_t parameter of a function pointer is
//     its interface's contract; paramcall.go: a function passed by name to
//     a callee that calls that parameter runs in the call's context
//     (ParamCallHeld); filetarget.go: primitives that reach the target
//     depending on the calling file; mfdparent.go: or, in an MFD child
//     driver, on the files of the parents that register it, and
//     mfdchildren.go: the children a patch to a parent changes; arch.go: another architecture's
//     definition of a function, or a header's config stub, does not hide
//     the real one. Calls into code written to run in any context
//     (Tables.AnyContext: sanitizers, lockdep) are not followed.
//   - retheld.go: contexts held on return conditionally on the returned
//     value's class (zero, error, other: summary.RetClass), as
//     lock_task_sighand() returns non-NULL with siglock held or a lock
//     helper returns 0 with its lock held; the walker carries them on the
//     variable the value is assigned to (State.Cond) and settles them at
//     a test of it, and remembers what tests say of variables on the path
//     (State.Facts), so that a merge of a path that took the lock with one
//     that returns NULL holds the lock conditionally on the value;
//     condparse.go reads what a branch condition says of a value.
//   - macro.go: a call that resolves to no function but to a
//     function-like macro of its own file (cassini's cas_lock_all_save())
//     or of a header it includes with quotes (mptcp_data_lock()) takes
//     the contexts the macro's body enters and leaves, summarised like a
//     function's.
//   - membereffects.go: a call through a struct member takes the held on
//     return and release effects of the functions assigned to it
//     (zpool_driver.map/.unmap).
//   - dropchain.go: the chain of a release of the caller's context keeps
//     its first and last steps only (all that its readers use), and a
//     release reaches a summary only if a caller can name its lock
//     (callerDrops).
//   - dropmatch.go: which of the caller's contexts such a release ends: a
//     lock released further down under another name (an unlock helper
//     deep in mm/) is not the caller's.
//
// The stored summaries and their invalidation are package sumstore:
// the files beside the index, the records, the climb that decides which
// stored summaries hold under a patch. stored.go is the engine's side of
// it: Prepare drives a Resolver over the tree, which notes on its stack
// what each summary is computed from (noteDep, noteMember) and hands it
// to the store's Builder (keep); a patch's Resolver reads through a
// sumstore.View (stored) and lets the climb summarise through it
// (storeEngine, the sumstore.Engine).
//
// Calls through struct members; the struct types themselves are package
// typing (a Typer per resolver, whose look-ups noteMember records as
// dependencies), over the text layer of package ctype.
//   - pointer.go: calls through struct members resolved from the index's
//     assignment table; signaturematch.go: plainly assigned members matched
//     by argument types; addrassigns.go: "&func" initializers;
//     privateops.go: member chains typed through the driver's own
//     headers (hw->mac.ops.acquire_swfw_sync()), and a struct private to
//     a directory implemented by every function assigned to that member
//     there, per-variant tables copied at probe time included.
//
// Callback registrations and implicit contexts.
//   - implicit.go: the contexts a callback runs in because of how it is
//     registered (member rows typed through nested designated
//     initializers too, typing.InitTag), or, for a held_from row
//     (seq_operations.show), what a sibling member's function returns
//     holding, or, for a container row, how it recovers its object
//     (from_tasklet()/from_timer() on its only parameter), and what a function's
//     own calls register (Registered, for a patch that changes a
//     registration); unless.go: a row lifted by what the registering file
//     declares (gpio_chip.can_sleep) or kept only where the object asks
//     for the context (regmap_config.fast_io); doccontext.go: the context
//     a function's kernel-doc "Context:" section states ("Any context.",
//     "Interrupt context.", "irqs blocked"), or a sentence of its body
//     ("This routine may be called in interrupt context."), the table's
//     doc_context phrases; memberdoc.go: the context a struct's
//     kernel-doc gives a member ("@tx: ... Must be atomic.") for the
//     functions a typed initializer puts there; assertcontext.go: the
//     context a function asserts on entry (lockdep_assert_irqs_disabled(),
//     assert_spin_locked(), lockdep_assert_held() and __must_hold(), whose
//     lock's kind heldkind.go reads from how the file takes it), the
//     table's asserts; region.go: primitives a region of the calling function
//     keeps from reaching the target (a user access between
//     pagefault_disable() and pagefault_enable()). The registrations
//     themselves are found by package registrations (a Table per
//     resolver): registration calls tree-wide (arg_has: only those whose
//     other argument says so, cpuhp_setup_state() of a STARTING state),
//     declaration macros such as DEFINE_TIMER, callbacks read from a
//     table's member, functions passing a callback parameter on to a
//     registration.
package lockctx

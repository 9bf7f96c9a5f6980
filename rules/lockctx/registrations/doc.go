// Package registrations finds how functions are registered to run in an
// atomic context: the callback rows of a family's table (timer_setup(),
// request_irq(), a notifier_block passed by its notifier_call, a
// DEFINE_TIMER at file scope) applied to one view of the tree. A Table
// answers, for a function name, the registration calls naming it (Of),
// the declaration macros of its file naming it (Decl), the registrations
// reaching it through a member it is assigned to (Members), and what a
// function's own calls register (By). What holds for the tree's files is
// found once per tree index and shared by every patch's view.
//
// Package lockctx turns these into the contexts a callback runs in
// (Resolver.Implicit), beside the member rows it matches itself (which
// need summaries: a held_from row runs under what a sibling member's
// function returns holding).
//
// The files:
//   - table.go: Callback (a table row), Reg, the Table and By.
//   - tree.go: the registration calls of a view, found tree-wide once and
//     per view for the files the patch changes.
//   - declmacros.go: declaration macros such as DEFINE_TIMER.
//   - memberarg.go: callbacks read from a table's member
//     (request_irq(irq, desc->handler)).
//   - wrappers.go: functions passing a callback parameter on to a
//     registration, as rows of their own (Rows, DeriveRows); stored.go:
//     those rows as Prepare stores them beside the index.
package registrations

// Package summary holds the values of the lock-context engine's function
// summaries (package lockctx) and their byte encoding: a Summary says
// whether a function may reach the rule's target with nothing of its own
// held (a Reach, with the chain down to the primitive) and how it changes
// its caller's atomic contexts (Effects). The engine computes them; the
// summary store (package sumstore) keeps them beside the index, encoded
// by Append on top of package wire.
//
//   - summary.go: Summary, Effect, Reach, ArgReach.
//   - codec.go: Append, AppendShape (line numbers left out) and Decode.
package summary

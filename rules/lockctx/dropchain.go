package lockctx

import "github.com/autosel-bot/autosel-bot/report"

// dropSteps returns the chain of a release a function makes of its
// caller's context through a call: first, the step in the function (the
// call), and the release primitive at the end of rest, the callee's
// chain. The steps between are left out. What reads a drop's chain reads
// these two steps alone (where the function leaves the context, and which
// release does it: rules/sleep's messages, and the drops of the next
// caller up, which are built the same way), and a full chain would be
// copied into the summary of every function above (through recursive
// components, tens of steps each): it made 1.8 GB of the 1.95 GB of
// Linux's stored summaries.
func dropSteps(first report.Step, rest []report.Step) []report.Step {
	return append([]report.Step{first}, dropEnd(rest)...)
}

// dropEnd returns the last step of a callee's drop chain, the release
// primitive (none for an empty chain).
func dropEnd(rest []report.Step) []report.Step {
	if len(rest) == 0 {
		return nil
	}
	return []report.Step{rest[len(rest)-1]}
}

package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

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

// callerDrops returns the drops of fn's summary that can name a lock of
// fn's caller. A caller names its locks through what it shares with fn:
// what it passes in fn's parameters, the objects of fn's file, a member
// path (lockName's "power.lock" matches dev->power.lock in any function),
// or, by the kernel's naming conventions, the same local name for the
// same object (a caller's priv->lock released by a helper that looks
// priv up again). A release fn passes up from a callee whose lock is a
// plain member of some other name (q->lock, its q neither fn's parameter
// nor an object of its file) names a local of a function below: no
// caller of fn holds it, except by a coincidence of names, and carried up
// it would be copied into the summary of every function above (a
// recursive component's dput() releases of victim->d_lock reached a
// hundred thousand summaries). Such drops are left out; fn's own
// releases and nameless or single-name locks are kept.
func (r *Resolver) callerDrops(fn *cscan.Func, ds []Effect) []Effect {
	if r.ix == nil {
		return ds // no source to read fn's parameters from
	}
	var out []Effect
	for i, d := range ds {
		keep := d.Key == "" || dropWrittenIn(d)
		if !keep {
			root, rest := keyRoot(d.Key)
			keep = root == "" || strings.Count(rest, ".")+strings.Count(rest, "->") > 1 ||
				r.typ.ParamIndex(fn, root) >= 0 || r.typ.FileScope(fn.File, root)
		}
		switch {
		case keep && out != nil:
			out = append(out, d)
		case !keep && out == nil:
			out = append(make([]Effect, 0, len(ds)), ds[:i]...)
		}
	}
	if out == nil {
		return ds
	}
	return out
}

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
// fn's caller. A release fn passes up from a callee whose lock is a plain
// member of one of fn's local variables (victim->d_lock, after
// dput(victim) renamed dput's dentry->d_lock in fn's terms) names what
// fn alone can reach: its callers' locks of that name are other objects,
// and carried up, the release would be copied into the summary of every
// function above (through a recursive component, into a hundred thousand
// summaries). Such drops are left out. Kept are fn's own releases (a
// caller's priv->lock released by a helper that looks priv up again, by
// the kernel's naming conventions), nameless and single-name locks,
// member paths (lockName's "power.lock" matches dev->power.lock in any
// function), and locks rooted at fn's parameters or at names fn does not
// declare (a global, or a callee's parameter passed an expression and so
// not renamed, which lockName still matches against the caller's). A
// local fn declares under a callee parameter's name (struct q *q =
// dev->q; then helper(q)) is left out with the rest, a known loss.
func (r *Resolver) callerDrops(fn *cscan.Func, ds []Effect) []Effect {
	if r.ix == nil {
		return ds // no source to read fn's declarations from
	}
	var out []Effect
	for i, d := range ds {
		keep := d.Key == "" || dropWrittenIn(d)
		if !keep {
			root, rest := keyRoot(d.Key)
			keep = root == "" || strings.Count(rest, ".")+strings.Count(rest, "->") > 1 ||
				r.typ.ParamIndex(fn, root) >= 0 || !r.typ.Locals(fn)[root]
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

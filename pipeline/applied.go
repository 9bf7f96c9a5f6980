package pipeline

import (
	"context"
	"fmt"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/rules"
)

// reversedBase returns base with m's patch reversed when the patch is
// already in base: it does not apply, but its reverse applies cleanly (as
// git am checks). A maintainer who checks their own branch gets the patch
// analysed against the tree without it instead of silently nothing. ok is
// false when the reverse does not apply, or the tree's index (which the
// reversed files are laid over) cannot be opened.
func (a *Analysis) reversedBase(ctx context.Context, m *mail.Message, base stack) (stack, bool) {
	rev, err := diffcheck.ReverseDiff(m.Diff)
	if err != nil {
		return base, false
	}
	rcs, err := diffcheck.Parse(rev)
	if err != nil {
		return base, false
	}
	if err := diffcheck.ApplyTree(rcs, base.tree); err != nil || rcs.ApplyError != "" {
		return base, false
	}
	if base.idx == nil {
		ix, err := a.index(ctx)
		if err != nil {
			return base, false
		}
		base.idx = ix
	}
	pass := rules.NewPass(rcs, base.idx, a.opts.RuleOptions, 0)
	return stack{tree: rcs.Tree, idx: pass.Index}, true
}

// applyReversed applies m's patch onto base with the patch reversed
// (reversedBase), and returns the change, the view it applies onto and
// what the report says; ok is false when the patch is not in base.
func (a *Analysis) applyReversed(ctx context.Context, m *mail.Message, base stack) (*diffcheck.ChangeSet, stack, string, bool) {
	rb, ok := a.reversedBase(ctx, m, base)
	if !ok {
		return nil, base, "", false
	}
	cs, err := diffcheck.Parse(m.Diff)
	if err != nil {
		return nil, base, "", false
	}
	if err := diffcheck.ApplyTree(cs, rb.tree); err != nil || cs.ApplyError != "" {
		return nil, base, "", false
	}
	name := diffcheck.TreeName(base.tree)
	say := fmt.Sprintf("the patch is already in %s (it does not apply, its reverse does): analysed against %s with the patch reversed", name, name)
	return cs, rb, say, true
}

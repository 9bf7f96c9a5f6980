package sleep

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// An indirect call the patch newly makes in atomic context: forward()
// reports a call through a member that the old version did not make
// there as a risk when an implementation of the struct type it is called
// through sleeps, though others do not.

// calleeKey names what a call calls: its name, and for a call through a
// member (ops->init_slot, q->ops->init_slot) the member alone, so that a
// patch that only reaches the same member through another expression
// does not make the call new.
func calleeKey(name string) string {
	if m, ok := cscan.CalleeMember(name); ok {
		return "->" + m
	}
	return name
}

// newIndirect returns the proof of an event the old version did not have
// at all: certain when the context is held on every path and the only
// uncertain link is the call itself, through a pointer resolved by the
// struct type it is called through (some of the type's implementations
// sleep, not all). A helper that goes through a pointer further down
// keeps its note: the patch relies on the helper's contract, not on the
// member's.
func newIndirect(e event) *lockctx.Reach {
	if !e.proof.Weak || !e.state.AnyMust() {
		return e.proof
	}
	links, typed := lockctx.PointerLinks(e.proof.Steps)
	if !typed || len(links) != 1 || links[0] != 1 || e.proof.Steps[0].Line != e.call.Line {
		return e.proof
	}
	p := *e.proof
	p.Weak = false
	p.Why += "; the patch newly makes this call in atomic context, so every implementation of the member must not sleep"
	return &p
}

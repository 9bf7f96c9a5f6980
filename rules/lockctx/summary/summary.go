package summary

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Effect is a change a function makes to its caller's atomic state.
type Effect struct {
	// Kind is the context kind (spin, rcu, ...), Key the lock expression.
	Kind, Key string
	// Steps lead from the function's call down to the primitive
	// (spin_lock_bh() inside lock_wqueue()). A drop's (a release of the
	// caller's context) are that call and the primitive alone: the steps
	// between are left out (lockctx's dropchain.go).
	Steps []report.Step
	// Soft marks a release that ends the context only when the caller
	// holds it (the bh side of spin_unlock_bh()).
	Soft bool
	// When and Not qualify a conditional acquire (Summary.CondAcquires):
	// the classes of return value with the context held, and those
	// without (lock_task_sighand(): held when it returns non-NULL; a
	// helper returning 0 with the lock held and -EINVAL without). Both
	// zero means the historical "held when it returns true" (RetPos
	// with it, RetZero without).
	When, Not RetClass
}

// RetClass is a set of classes of a function's return value, as a
// caller tests them: zero (0, NULL, false), an error (a negative errno,
// ERR_PTR()), anything else (a positive value, a valid pointer, true).
type RetClass uint8

// The return value classes.
const (
	RetZero RetClass = 1 << iota
	RetErr
	RetPos
	// RetAny is every class: nothing is known of the value.
	RetAny = RetZero | RetErr | RetPos
)

// Masks returns e's When and Not, the historical meaning filled in for a
// conditional acquire that has none.
func (e Effect) Masks() (when, not RetClass) {
	if e.When == 0 && e.Not == 0 {
		return RetPos, RetZero
	}
	return e.When, e.Not
}

// Reach says why a function may reach the target: the chain from the
// call in the function down to the target primitive (for the sleep rule:
// the sleeping one).
type Reach struct {
	// Steps lead from the call down to the primitive.
	Steps []report.Step
	// Prim is the target primitive reached, Why the table's reason.
	Prim string
	Why  string
	// Drops are caller contexts released before the target is reached
	// (unbalanced unlocks such as rcu_read_unlock() in a callee).
	Drops []Effect
	// Retakes are contexts re-entered after such a drop.
	Retakes []Effect
	// Weak is set when a link of the chain is uncertain: a call through a
	// function pointer where only some of the functions assigned to the
	// member reach the target.
	Weak bool
	// Cond is set when the chain is taken only for some values of one of
	// the function's parameters (a can_sleep flag selecting a path that
	// takes a mutex).
	Cond *ParamCond
}

// ParamCond says which values of a parameter a Reach needs: the chain
// runs only when parameter Param is nonzero (True) or zero (!True).
type ParamCond struct {
	Param int
	True  bool
	// Value, when set, is the constant the parameter must equal (the
	// chain runs under "case Value:" of a switch on it); True is then
	// unused.
	Value string
	// Bit, when set, is the flag the chain needs set in the parameter
	// (True) or clear (!True): the chain runs under `if (flags & Bit)`
	// or with the mask `flags & Bit ? GFP_ATOMIC : GFP_KERNEL` chooses.
	Bit string
	// Strict is set when the chain counts only for a caller passing a
	// value known to satisfy the condition (the guard names a context
	// check, can_sleep); otherwise it counts unless the caller passes a
	// value known not to.
	Strict bool
}

// SameCond reports whether a and b ask the same of the same parameter
// (both nil included).
func SameCond(a, b *ParamCond) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Param == b.Param && a.True == b.True && a.Value == b.Value && a.Bit == b.Bit
}

// ArgReach is a Reach that happens when the function's parameter Param
// receives a value the target accepts (lockctx.ArgTarget).
type ArgReach struct {
	Param int
	Reach
	// Call is the primitive call the parameter flows into.
	Call cscan.Call
}

// Summary is the klint-style summary of one function: whether it may
// reach the target (with proof) and how it changes its caller's atomic
// state.
type Summary struct {
	// Reach is set when the function may reach a target primitive with no
	// context of its own held (for the sleep rule: it may sleep).
	Reach *Reach
	// Acquires are contexts held at every return; CondAcquires those held
	// exactly when the function returns a value of their When classes
	// (lock_wqueue() returns true with the lock held).
	Acquires, CondAcquires []Effect
	// Drops are caller contexts released by the function.
	Drops []Effect
	// ArgReaches are reaches that depend on the value a caller passes in a
	// parameter (see lockctx.ArgTarget), with nothing of the function's
	// own held.
	ArgReaches []ArgReach
	// Alt, set only with a conditional Reach, is a chain taken for other
	// parameter values than Reach's (a flags word that selects a wait
	// with one bit set and a GFP_KERNEL allocation with another clear):
	// a caller whose arguments rule Reach out may still take it.
	Alt *Reach
}

// AssignedAt is how a chain step quotes where a function was assigned to
// the member a call went through ("calls f() via ops.run (assigned at
// drivers/x.c:120)"); the store renumbers such places when a patch moves
// them.
const AssignedAt = "(assigned at "

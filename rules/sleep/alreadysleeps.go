package sleep

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// A path that already sleeps: a reverse finding says that a caller holding
// a lock reaches, through a chain of calls, a function the patch made
// sleep. When a function of that chain already sleeps before the call
// that continues it, on every path to that call and before the patch,
// the patch adds no new sleep in atomic context there: either the chain
// is never taken with the lock held, or the tree already sleeps under it
// (and DEBUG_ATOMIC_SLEEP would fire on the older call first). Such a
// finding is a note, with the earlier sleep named.

// maxCertainSteps bounds the chain of an earlier sleep that counts: the
// sleeping call itself, or a helper's call that makes it.
const maxCertainSteps = 2

// alreadySleeps returns, for the chain steps of a reverse finding (the
// calls from the lock holder lockFn down to callee, the function that
// newly sleeps), a sentence naming the first function of the chain after
// the lock holder that already sleeps unconditionally before its call in
// the chain, in the tree before the patch; "" when none does. Only sleeps
// in blocks that enclose the chain's call count ("if (x) msleep(1);"
// before it does not), no sleep reached through a function pointer
// shared by several functions, and no sleep deeper than a helper's own
// call (maxCertainSteps): a sleep further down may be on one of the
// callee's paths only (a release callback run when kref_put() drops the
// last reference, a branch inside the callee), so it proves nothing of
// this path.
func (r *checker) alreadySleeps(lockFn string, steps []report.Step, callee string) string {
	if r.p.Index == nil {
		return ""
	}
	for i, s := range steps {
		if s.Func == callee {
			break
		}
		if s.Func == lockFn || s.Line <= 0 {
			// The lock holder's own sleeps may come before its lock.
			continue
		}
		f := r.oldBody(s.Func, s.File)
		if f == nil || f.File != s.File {
			continue
		}
		line := s.Line
		if _, changed := r.oldSide(s.Func, s.File); changed {
			// The chain's lines are the patched version's: the call that
			// continues it is found in the old one by its callee (none
			// for the chain's last step).
			if i+1 == len(steps) {
				continue
			}
			if line = oldCallLine(f, steps[i+1].Func); line == 0 {
				continue
			}
		}
		if v, ok := r.sleepsBefore(f, line); ok {
			return fmt.Sprintf("%s() already sleeps on this path before the patch (%s at %s:%d, %s), before it calls on down the chain at line %d: the patch adds no new sleep in atomic context here.",
				s.Func, lockctx.CallText(v.Call), s.File, v.Call.Line, v.Reach.Why, s.Line)
		}
	}
	return ""
}

// sleepsBefore returns the first sleeping call of f (as the tree has it
// before the patch) that runs unconditionally before its call at line:
// in a block enclosing that call, on every path to it (straightBetween),
// proven (no function pointer shared by several functions), and no
// deeper than a helper's own call.
func (r *checker) sleepsBefore(f *cscan.Func, line int) (lockctx.Visit, bool) {
	at := callOnLine(f, line)
	if at == nil {
		return lockctx.Visit{}, false
	}
	var found lockctx.Visit
	ok := false
	lockctx.Walk(r.oldR, f, func(v lockctx.Visit) {
		if ok || v.Reach == nil || v.Reach.Weak || len(v.Reach.Steps) > maxCertainSteps || v.State.Dead || v.Call.Line >= line ||
			!cscan.GuardsEnclose(v.Call.Guards, at.Guards) || f.Body != nil && !straightBetween(f.Body, v.Call, line) {
			return
		}
		found, ok = v, true
	})
	return found, ok
}

// oldBody returns the body of name (called from file) before the patch:
// the patch's old side when the patch changes it, the tree's otherwise.
func (r *checker) oldBody(name, file string) *cscan.Func {
	if of, ok := r.oldSide(name, file); ok {
		return of
	}
	defs := cscan.PickDefs(r.p.Index.Funcs(name), file)
	if len(defs) == 0 {
		return nil
	}
	return r.p.Index.Full(defs[0])
}

// oldSide returns the patch's old side of function name of file when the
// patch changes it (nil for a function it adds), ok false when it does
// not change it.
func (r *checker) oldSide(name, file string) (of *cscan.Func, ok bool) {
	for fc, of := range r.oldFuncs {
		if fc.Name == name && fc.File == file {
			return of, true
		}
	}
	return nil, false
}

// oldCallLine returns the line of f's direct call of callee when f calls
// it exactly once, 0 otherwise (which of several calls continues the
// chain is not known from the callee alone).
func oldCallLine(f *cscan.Func, callee string) int {
	line := 0
	for _, c := range f.Calls {
		if c.Name == callee {
			if line != 0 {
				return 0
			}
			line = c.Line
		}
	}
	return line
}

// callOnLine returns the first call of f on line, or nil.
func callOnLine(f *cscan.Func, line int) *cscan.Call {
	for i := range f.Calls {
		if f.Calls[i].Line == line {
			return &f.Calls[i]
		}
	}
	return nil
}

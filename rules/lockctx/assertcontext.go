package lockctx

import (
	"fmt"
	"slices"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// Contexts a function asserts.
//
// A function that checks its context on entry
// (lockdep_assert_irqs_disabled(), assert_spin_locked(&q->lock),
// WARN_ON_ONCE(!irqs_disabled())) states what every caller must hold, as
// a kernel-doc "Context:" section does, and lockdep or the warning holds
// them to it: its body runs in that context. Only an assertion made on
// every path (under no if, with no return before it) before the function
// enters any context itself (a lock, a guard(), a helper returning with a
// lock held) counts: after its own spin_lock() an assertion speaks of
// that lock.

// ContextAssert is one "asserts" row of a family's table.
type ContextAssert struct {
	// Names are the asserting calls; Arg, when set, is what their first
	// argument must read ("!irqs_disabled()" for WARN_ON()), whitespace
	// aside.
	Names []string `yaml:"names"`
	Arg   string   `yaml:"arg"`
	// Kind is the atomic context kind asserted; LockArg, for a lock kind,
	// is the argument naming the lock (-1: none).
	Kind    string `yaml:"kind"`
	LockArg int    `yaml:"lock_arg"`
	Why     string `yaml:"why"`
}

// checkAsserts checks the rows' kinds.
func checkAsserts(rows []ContextAssert) error {
	for _, a := range rows {
		if !Kinds[a.Kind] {
			return fmt.Errorf("asserts %v: kind %q is no atomic context kind", a.Names, a.Kind)
		}
	}
	return nil
}

// assertContext returns the context fn asserts on entry, entered at the
// assertion; false when it asserts none.
func (r *Resolver) assertContext(fn *cscan.Func) (Held, bool) {
	if len(r.m.asserts) == 0 {
		return Held{}, false
	}
	for i, c := range fn.Calls {
		a, ok := r.m.assertOf(c)
		if !ok || len(c.Guards) > 0 {
			continue
		}
		for _, before := range fn.Calls[:i] {
			if r.takesAny(before, fn) {
				return Held{}, false
			}
		}
		for _, ret := range fn.Returns {
			if ret.Line < c.Line {
				// A path returning before the assertion is not known
				// to run in its context.
				return Held{}, false
			}
		}
		key := ""
		if lockmodel.IsLock(a.Kind) {
			key = lockmodel.ArgKey(c, a.LockArg)
		}
		return Held{Kind: a.Kind, Key: key, Must: true, Stated: true,
			At:  report.Step{Func: fn.Name, File: fn.File, Line: c.Line, What: "asserts " + CallText(c)},
			Why: a.Why}, true
	}
	return Held{}, false
}

// assertOf returns the asserts row call c matches.
func (m *Model) assertOf(c cscan.Call) (ContextAssert, bool) {
	for _, a := range m.asserts {
		if !slices.Contains(a.Names, c.Name) {
			continue
		}
		if a.Arg == "" || len(c.Args) > 0 && lockmodel.Key(c.Args[0]) == a.Arg {
			return a, true
		}
	}
	return ContextAssert{}, false
}

// takesAny reports whether fn's call c enters a context: a lock
// primitive, a guard() or scoped_guard(), or a callee returning with one
// held (on every return or on some values).
func (r *Resolver) takesAny(c cscan.Call, fn *cscan.Func) bool {
	switch r.m.Classify(c).Op {
	case lockmodel.Take, lockmodel.TryTake:
		return true
	}
	if _, _, ok := r.m.Guard(c); ok {
		return true
	}
	if r.m.Primitive(c.Name) {
		return false
	}
	cs := r.calleeSummary(c, fn)
	return cs != nil && len(cs.Acquires)+len(cs.CondAcquires) > 0
}

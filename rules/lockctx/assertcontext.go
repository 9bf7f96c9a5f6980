package lockctx

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
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
	// Kind is the atomic context kind asserted ("held": the kind the
	// function's file takes the lock with); LockArg, for a lock kind, is
	// the argument naming the lock (-1: none).
	Kind    string `yaml:"kind"`
	LockArg int    `yaml:"lock_arg"`
	Why     string `yaml:"why"`
	// Annotation: the names are annotations of the function's
	// declaration (__must_hold(&x->lock) between its parameters and its
	// body), not calls: they hold from its entry on every path.
	Annotation bool `yaml:"annotation"`
}

// HeldKind is the kind of an "asserts" row whose lock's kind is the one
// the asserting function's file takes it with (heldkind.go).
const HeldKind = "held"

// checkAsserts checks the rows' kinds.
func checkAsserts(rows []ContextAssert) error {
	for _, a := range rows {
		if !Kinds[a.Kind] && a.Kind != HeldKind {
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
	if h, ok := r.annotatedContext(fn); ok {
		return h, true
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
		if lockmodel.IsLock(a.Kind) || a.Kind == HeldKind {
			key = lockmodel.ArgKey(c, a.LockArg)
		}
		if h, ok := r.statedHeld(fn, a, key, report.Step{Func: fn.Name, File: fn.File, Line: c.Line, What: "asserts " + CallText(c)}); ok {
			return h, true
		}
	}
	return Held{}, false
}

// statedHeld returns the context row a states for lock key, entered at
// step at: of a "held" row, the kind fn's file takes the lock with (false
// when it takes it with none the model keeps).
func (r *Resolver) statedHeld(fn *cscan.Func, a ContextAssert, key string, at report.Step) (Held, bool) {
	kind, why := a.Kind, a.Why
	if a.Kind == HeldKind {
		k, take := r.heldKind(fn, key)
		if k == "" {
			return Held{}, false
		}
		kind, why = k, fmt.Sprintf("%s, which its file takes with %s", a.Why, take)
	}
	return Held{Kind: kind, Key: key, Must: true, Stated: true, At: at, Why: why}, true
}

// annotatedContext returns the context an annotation of fn's declaration
// states (an "annotation" row: __must_hold()), entered at fn's name.
func (r *Resolver) annotatedContext(fn *cscan.Func) (Held, bool) {
	if r.typ == nil || fn.BodyStart < fn.Start {
		return Held{}, false
	}
	// Implicit asks this of every function the reverse walk meets: the
	// head is read raw, and comments are stripped only from the rare head
	// that names an annotation.
	raw := r.typ.FileLines(fn.File).Span(fn.Start-1, fn.BodyStart)
	head := ""
	for _, a := range r.m.asserts {
		if !a.Annotation {
			continue
		}
		for _, name := range a.Names {
			if !strings.Contains(raw, name) {
				continue
			}
			if head == "" {
				head = typing.StripComments(raw)
			}
			m := annotationArg(head, name)
			if m == "" {
				continue
			}
			at := report.Step{Func: fn.Name, File: fn.File, Line: fn.Start, What: "declared " + name + "(" + m + ")"}
			if h, ok := r.statedHeld(fn, a, lockmodel.Key(m), at); ok {
				return h, true
			}
		}
	}
	return Held{}, false
}

// annotationArg returns the argument of annotation name in a function's
// head, after its parameter list; "" when absent.
func annotationArg(head, name string) string {
	open := strings.IndexByte(head, '(')
	if open < 0 {
		return ""
	}
	close := cscan.MatchParen(head, open)
	if close < 0 {
		return ""
	}
	rest := head[close+1:]
	j := strings.Index(rest, name)
	if j < 0 {
		return ""
	}
	rest = rest[j+len(name):]
	k := strings.IndexByte(rest, '(')
	if k < 0 || strings.TrimSpace(rest[:k]) != "" {
		return ""
	}
	end := cscan.MatchParen(rest, k)
	if end < 0 {
		return ""
	}
	return strings.TrimSpace(rest[k+1 : end])
}

// assertOf returns the asserts row call c matches.
func (m *Model) assertOf(c cscan.Call) (ContextAssert, bool) {
	for _, a := range m.asserts {
		if a.Annotation || !slices.Contains(a.Names, c.Name) {
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

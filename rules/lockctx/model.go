package lockctx

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// Tables are the engine's part of a rule family's YAML section (inlined
// into it: rules/tables/sleep.yaml): the implicit contexts of callbacks
// and the code not followed. The locks and atomic contexts themselves are
// the one lock model of every rule (rules/lockmodel, locks.yaml).
type Tables struct {
	// Callbacks list registrations that make a function run in an
	// atomic context (implicit.go, package registrations).
	Callbacks []Callback `yaml:"callbacks"`
	// AnyContext lists path prefixes of code written to run in any
	// context (sanitizers, lockdep, the stack depot): calls into
	// functions defined there are not followed. They instrument atomic
	// code everywhere, so what they may do is never their caller's bug.
	AnyContext []string `yaml:"any_context"`
	// DocContext are the phrases of a kernel-doc "Context:" section that
	// put its function in an atomic context (doccontext.go).
	DocContext DocContext `yaml:"doc_context"`
	// Asserts are the calls by which a function asserts the context its
	// callers run it in (assertcontext.go).
	Asserts []ContextAssert `yaml:"asserts"`
}

// Callback is one way of registering a function that makes it run in an
// atomic context (a "callbacks" row of a family's table; see
// registrations.Callback).
type Callback = registrations.Callback

// Prim is one resolved context primitive.
type Prim = lockmodel.Prim

// Target is what a rule looks for under atomic context: the engine
// propagates "reaches a target with no context of its own held" through
// callee summaries, and reports each call reaching one in Visit.Reach.
type Target interface {
	// Reaches reports whether call c is a target primitive, and why.
	Reaches(c cscan.Call) (why string, ok bool)
	// Conditional reports whether a call's guards make reaching the
	// target conditional (such calls are not counted).
	Conditional(gs []cscan.Guard) bool
}

// TableTarget is a Target whose tables decide some names by their
// arguments (an allocator by its GFP mask, might_sleep_if() by its
// condition): a call to such a name that the tables answer "no" is not
// looked up further, in particular not as a kernel-wide header's macro
// (macro.go), whose body would ignore the argument.
type TableTarget interface {
	// Decides reports whether the tables hold a row for name.
	Decides(name string) bool
}

// ElseTarget is a Target that also knows tests whose true case is the
// atomic one: the else branch of such a test does not reach the target in
// atomic context ("if (in_interrupt()) defer(); else mutex_lock();").
type ElseTarget interface {
	// ElseConditional reports whether the else branch of an if testing
	// cond is taken only outside atomic context.
	ElseConditional(cond string) bool
}

// Model is the compiled context table with the rule's target: the lock
// model's atomic kinds, the callbacks and the target.
type Model struct {
	*lockmodel.Model
	callbacks  []Callback
	anyContext []string
	doc        docRules
	asserts    []ContextAssert
	target     Target
	// id identifies the tables and target (summaries are shared between
	// models with the same id).
	id string
}

// Target returns the rule's target the model was compiled with.
func (m *Model) Target() Target { return m.target }

// ID identifies the model's tables and target: models with the same ID
// share stored summaries, in this process and in later ones, so it must
// not depend on where anything lies in memory.
func (m *Model) ID() string { return m.id }

// Kinds are the context kinds the engine tracks: the lock model's atomic
// ones.
var Kinds = lockmodel.Atomic

// Compile checks and compiles t over the lock table locks; section names
// the YAML section in errors.
func Compile(section string, locks *lockmodel.Table, t *Tables, target Target) (*Model, error) {
	lm, err := lockmodel.Compile(locks, func(kind string) bool { return Kinds[kind] })
	if err != nil {
		return nil, err
	}
	doc, err := compileDoc(t.DocContext)
	if err != nil {
		return nil, err
	}
	if err := checkAsserts(t.Asserts); err != nil {
		return nil, err
	}
	m := &Model{Model: lm, callbacks: t.Callbacks, anyContext: t.AnyContext, doc: doc, asserts: t.Asserts, target: target}
	h := sha1.Sum([]byte(fmt.Sprintf("%s|%+v|%+v|%+v", section, *locks, *t, target)))
	m.id = hex.EncodeToString(h[:])
	for i, c := range t.Callbacks {
		// A held_from row's contexts come from its HeldFrom member's summary.
		if !(c.HeldFrom != "" && c.Kind == "" && len(c.Members) > 0) && !Kinds[c.Kind] {
			return nil, fmt.Errorf("%s.callbacks[%d]: unknown kind %q", section, i, c.Kind)
		}
		if len(c.Names) == 0 && len(c.Prefix) == 0 && len(c.Members) == 0 && len(c.Container) == 0 || len(c.Members) > 0 && c.Struct == "" {
			return nil, fmt.Errorf("%s.callbacks[%d]: needs names, prefix, container, or members with struct", section, i)
		}
		if len(c.Prefix) > 0 && (c.Decl || slices.Contains(c.Prefix, "")) {
			return nil, fmt.Errorf("%s.callbacks[%d]: a prefix row names registration calls (not decl), by non-empty prefixes", section, i)
		}
		if len(c.ArgHas.Any) > 0 && (len(c.Names) == 0 && len(c.Prefix) == 0 || c.ArgHas.Arg < 0 || slices.Contains(c.ArgHas.Any, "")) {
			return nil, fmt.Errorf("%s.callbacks[%d]: arg_has conditions a registration call (names or prefix) on a non-negative argument, by non-empty texts", section, i)
		}
		if c.Why == "" {
			return nil, fmt.Errorf("%s.callbacks[%d]: needs why", section, i)
		}
	}
	return m, nil
}

// anyContextFile reports whether a file is code written to run in any
// context (Tables.AnyContext).
func (m *Model) anyContextFile(file string) bool {
	for _, p := range m.anyContext {
		if strings.HasPrefix(file, p) {
			return true
		}
	}
	return false
}

func (m *Model) reaches(c cscan.Call) (string, bool) {
	if m.target == nil {
		return "", false
	}
	return m.target.Reaches(c)
}

func (m *Model) conditional(gs []cscan.Guard) bool {
	return m.target != nil && m.target.Conditional(gs)
}

// normKey normalises a lock expression (lockmodel.Key).
func normKey(s string) string { return lockmodel.Key(s) }

// primitive reports whether c is one of the table's primitives or a
// target (never looked up as a function).
func (m *Model) primitive(c cscan.Call) bool {
	if m.Primitive(c.Name) {
		return true
	}
	_, ok := m.reaches(c)
	return ok || c.Name == "guard" || c.Name == "scoped_guard"
}

// KindName renders a context kind for messages.
func KindName(kind string) string {
	switch kind {
	case "spin":
		return "spinlock"
	case "raw_spin":
		return "raw spinlock"
	case "rwlock":
		return "rwlock"
	case "rcu":
		return "RCU read-side critical section"
	case "bh":
		return "bottom halves disabled"
	case "irq":
		return "interrupts disabled"
	case "preempt":
		return "preemption disabled"
	case "hardirq":
		return "hard interrupt context"
	case "softirq":
		return "softirq context"
	}
	return kind
}

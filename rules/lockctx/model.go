package lockctx

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Tables are the atomic-context primitives of a rule family's YAML section
// (inlined into it: rules/tables/sleep.yaml holds them for the sleep rule).
type Tables struct {
	// Acquire lists calls that enter an atomic context.
	Acquire []Row `yaml:"acquire"`
	// Release lists calls that leave one (matched by kind and key).
	Release []Row `yaml:"release"`
	// Trylock lists calls that enter a context when they return true.
	Trylock []Row `yaml:"trylock"`
	// Guards maps a guard()/scoped_guard() class to its context kind
	// ("" for classes that are not atomic, such as mutex).
	Guards map[string]string `yaml:"guards"`
	// Callbacks list registrations that make a function run in an
	// atomic context (implicit.go).
	Callbacks []Callback `yaml:"callbacks"`
	// AnyContext lists path prefixes of code written to run in any
	// context (sanitizers, lockdep, the stack depot): calls into
	// functions defined there are not followed. They instrument atomic
	// code everywhere, so what they may do is never their caller's bug.
	AnyContext []string `yaml:"any_context"`
}

// Row lists primitives that enter or leave one kind of atomic context.
type Row struct {
	// Names are exact callee names.
	Names []string `yaml:"names"`
	// Kind is the context kind (see Kinds).
	Kind string `yaml:"kind"`
	// Arg is the argument naming the lock (-1: none).
	Arg int `yaml:"arg"`
	// ArgOf overrides Arg per name.
	ArgOf map[string]int `yaml:"arg_of"`
}

// Prim is one resolved context primitive.
type Prim struct {
	// Kind is the context kind, Arg the lock argument (-1: none).
	Kind string
	Arg  int
}

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

// Model is the compiled context table with the rule's target.
type Model struct {
	acquire, release, trylock map[string]Prim
	guards                    map[string]string
	callbacks                 []Callback
	anyContext                []string
	target                    Target
	// id identifies the tables and target (summaries are shared between
	// models with the same id).
	id string
}

// Kinds are the known context kinds.
var Kinds = map[string]bool{"spin": true, "raw_spin": true, "rwlock": true, "rcu": true, "bh": true, "irq": true, "preempt": true,
	"hardirq": true, "softirq": true}

// Compile checks and compiles t; section names the YAML section in errors.
func Compile(section string, t *Tables, target Target) (*Model, error) {
	m := &Model{
		acquire: map[string]Prim{}, release: map[string]Prim{}, trylock: map[string]Prim{},
		guards: t.Guards, callbacks: t.Callbacks, anyContext: t.AnyContext, target: target,
	}
	h := sha1.Sum([]byte(fmt.Sprintf("%s|%+v|%+v", section, *t, target)))
	m.id = hex.EncodeToString(h[:])
	fill := func(rows []Row, dst map[string]Prim, what string) error {
		for i, r := range rows {
			if !Kinds[r.Kind] {
				return fmt.Errorf("%s.%s[%d]: unknown kind %q", section, what, i, r.Kind)
			}
			for _, n := range r.Names {
				arg := r.Arg
				if a, ok := r.ArgOf[n]; ok {
					arg = a
				}
				dst[n] = Prim{Kind: r.Kind, Arg: arg}
			}
		}
		return nil
	}
	if err := fill(t.Acquire, m.acquire, "acquire"); err != nil {
		return nil, err
	}
	if err := fill(t.Release, m.release, "release"); err != nil {
		return nil, err
	}
	if err := fill(t.Trylock, m.trylock, "trylock"); err != nil {
		return nil, err
	}
	for i, c := range t.Callbacks {
		// A held_from row's contexts come from its HeldFrom member's summary.
		if !(c.HeldFrom != "" && c.Kind == "" && len(c.Members) > 0) && !Kinds[c.Kind] {
			return nil, fmt.Errorf("%s.callbacks[%d]: unknown kind %q", section, i, c.Kind)
		}
		if len(c.Names) == 0 && len(c.Members) == 0 || len(c.Members) > 0 && c.Struct == "" {
			return nil, fmt.Errorf("%s.callbacks[%d]: needs names, or members with struct", section, i)
		}
		if c.Why == "" {
			return nil, fmt.Errorf("%s.callbacks[%d]: needs why", section, i)
		}
	}
	for class, kind := range t.Guards {
		if kind != "" && !Kinds[kind] {
			return nil, fmt.Errorf("%s.guards.%s: unknown kind %q", section, class, kind)
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

// Acquirer returns the primitive when name enters an atomic context.
func (m *Model) Acquirer(name string) (Prim, bool) {
	p, ok := m.acquire[name]
	return p, ok
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

// argKey returns the lock key text of argument i ("" when none).
func argKey(c cscan.Call, i int) string {
	if i < 0 || i >= len(c.Args) {
		return ""
	}
	return normKey(c.Args[i])
}

// normKey normalises a lock expression: "&pipe->rd_wait.lock" and
// "&(pipe->rd_wait.lock)" both become "pipe->rd_wait.lock".
func normKey(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "&")
	for strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return strings.ReplaceAll(s, " ", "")
}

// primitive reports whether c is one of the table's primitives or a
// target (never looked up as a function).
func (m *Model) primitive(c cscan.Call) bool {
	if _, ok := m.acquire[c.Name]; ok {
		return true
	}
	if _, ok := m.release[c.Name]; ok {
		return true
	}
	if _, ok := m.trylock[c.Name]; ok {
		return true
	}
	_, ok := m.reaches(c)
	return ok || c.Name == "guard" || c.Name == "scoped_guard"
}

// guardKind returns the context kind of a guard()/scoped_guard() call and
// its lock key.
func (m *Model) guardKind(c cscan.Call) (kind, key string, ok bool) {
	if len(c.Args) == 0 {
		return "", "", false
	}
	kind, ok = m.guards[strings.TrimSpace(c.Args[0])]
	if !ok || kind == "" {
		return "", "", false
	}
	if len(c.Args) > 1 {
		key = normKey(c.Args[1])
	}
	return kind, key, true
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

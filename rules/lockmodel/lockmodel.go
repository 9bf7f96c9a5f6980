// Package lockmodel is the one lock model of every rule: which calls take
// a lock or enter an atomic context, which release it, which take it only
// when they return true, and which guard() classes hold what. Its table
// is rules/tables/locks.yaml (section "locks", extendable from the
// rules.tables files like every table).
//
// A primitive has a kind and the argument naming its lock. Kinds are
// atomic contexts (spinlocks, rwlocks, RCU, preemption, interrupts and
// bottom halves off: a sleeping call there is a bug) or sleeping locks
// (mutexes, rw-semaphores, semaphores: they order a sleeper and a waker
// like any lock, and may themselves sleep). rules/lockctx tracks the
// atomic kinds; rules/wakeup the lock kinds of both groups, to see
// whether a common lock orders the two sides of a wait/wake pair.
//
// Rules read a call through Classify (classify.go), the one place that
// says what a call does to the lock state: the lockctx walker, its flat
// summaries and wakeup's lock checks all use it.
package lockmodel

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Row lists primitives that enter or leave one kind of context.
type Row struct {
	// Names are exact callee names.
	Names []string `yaml:"names"`
	// Kind is the context kind (see Atomic and Sleeping).
	Kind string `yaml:"kind"`
	// Arg is the argument naming the lock (-1: none).
	Arg int `yaml:"arg"`
	// ArgOf overrides Arg per name.
	ArgOf map[string]int `yaml:"arg_of"`
}

// Table is the "locks" section of the tables.
type Table struct {
	// Acquire lists calls that take a lock or enter an atomic context.
	Acquire []Row `yaml:"acquire"`
	// Release lists calls that release one (matched by kind and key).
	Release []Row `yaml:"release"`
	// Trylock lists calls that take a lock only when they return true.
	Trylock []Row `yaml:"trylock"`
	// Guards maps a guard()/scoped_guard() class to its kind ("" for a
	// class that holds nothing: migrate).
	Guards map[string]string `yaml:"guards"`
	// EndsBH lists releases that also re-enable bottom halves
	// (spin_unlock_bh()); each must be a Release name.
	EndsBH []string `yaml:"ends_bh"`
}

// Atomic are the kinds that are atomic contexts.
var Atomic = map[string]bool{"spin": true, "raw_spin": true, "rwlock": true, "rcu": true, "bh": true, "irq": true,
	"preempt": true, "hardirq": true, "softirq": true}

// Sleeping are the kinds of sleeping locks.
var Sleeping = map[string]bool{"mutex": true, "rwsem": true, "semaphore": true}

// IsLock reports whether kind is a lock two functions can both take to
// order what they do (an atomic context such as RCU or preemption off
// orders nothing between CPUs).
func IsLock(kind string) bool {
	return Sleeping[kind] || kind == "spin" || kind == "raw_spin" || kind == "rwlock"
}

// Prim is one resolved primitive.
type Prim struct {
	// Kind is the context kind, Arg the lock argument (-1: none).
	Kind string
	Arg  int
}

// Model is the compiled table, restricted to the kinds a rule keeps.
type Model struct {
	acquire, release, trylock map[string]Prim
	guards                    map[string]string
	endsBH                    map[string]bool
}

// Compile checks t and compiles the rows whose kind keep accepts (nil:
// every kind). A kind known to neither group is an error.
func Compile(t *Table, keep func(kind string) bool) (*Model, error) {
	m := &Model{acquire: map[string]Prim{}, release: map[string]Prim{}, trylock: map[string]Prim{}, guards: map[string]string{},
		endsBH: map[string]bool{}}
	fill := func(rows []Row, dst map[string]Prim, what string) error {
		for i, r := range rows {
			if !Atomic[r.Kind] && !Sleeping[r.Kind] {
				return fmt.Errorf("locks.%s[%d]: unknown kind %q", what, i, r.Kind)
			}
			if keep != nil && !keep(r.Kind) {
				continue
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
	for class, kind := range t.Guards {
		if kind != "" && !Atomic[kind] && !Sleeping[kind] {
			return nil, fmt.Errorf("locks.guards.%s: unknown kind %q", class, kind)
		}
		if kind != "" && keep != nil && !keep(kind) {
			kind = ""
		}
		m.guards[class] = kind
	}
	releases := map[string]bool{}
	for _, r := range t.Release {
		for _, n := range r.Names {
			releases[n] = true
		}
	}
	for i, n := range t.EndsBH {
		if !releases[n] {
			return nil, fmt.Errorf("locks.ends_bh[%d]: %q is not a release", i, n)
		}
		m.endsBH[n] = true
	}
	return m, nil
}

// Primitive reports whether name is any of the model's primitives.
func (m *Model) Primitive(name string) bool {
	_, a := m.acquire[name]
	_, r := m.release[name]
	_, t := m.trylock[name]
	return a || r || t
}

// Guard returns the kind and lock key of a guard()/scoped_guard() call
// (guard(spinlock_irqsave)(&q->lock), scoped_guard(mutex, &m)); ok is
// false when its class holds nothing the model keeps.
func (m *Model) Guard(c cscan.Call) (kind, key string, ok bool) {
	if len(c.Args) == 0 {
		return "", "", false
	}
	kind, ok = m.guards[strings.TrimSpace(c.Args[0])]
	if !ok || kind == "" {
		return "", "", false
	}
	if len(c.Args) > 1 {
		key = Key(c.Args[1])
	}
	return kind, key, true
}

// ArgKey returns the lock key of argument i of c ("" when none).
func ArgKey(c cscan.Call, i int) string {
	if i < 0 || i >= len(c.Args) {
		return ""
	}
	return Key(c.Args[i])
}

// Key normalises a lock expression: "&pipe->rd_wait.lock" and
// "&(pipe->rd_wait.lock)" both become "pipe->rd_wait.lock".
func Key(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "&")
	for strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return strings.ReplaceAll(s, " ", "")
}

package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// Held is one atomic context held at a program point.
type Held struct {
	Kind, Key string
	// Must is set when the context is held on every path reaching the
	// point; otherwise only on some.
	Must bool
	// At is where the context was entered (the call in the analysed
	// function); Via continues into callees when a function entered it
	// (lock_wqueue() -> spin_lock_bh()).
	At  report.Step
	Via []report.Step
	// Why says why a context entered implicitly (by registration) is
	// atomic; "" for contexts entered by a call.
	Why string
	// Stated is set for an implicit context the function states itself
	// (an assertion on entry, its kernel-doc) rather than one its
	// registration puts it in: its direct callers are still to check.
	Stated bool
	// UnlessSleeps is set for an implicit context whose row does not
	// apply to a callback that already slept before the patch
	// (registrations.Callback.UnlessSleeps).
	UnlessSleeps bool
	// Shutdown is set for an implicit context entered only on the way
	// down, at restart or power-off (registrations.Callback.Shutdown).
	Shutdown bool
}

// State is the set of atomic contexts held at a program point.
type State struct {
	// Held lists the contexts, innermost last.
	Held []Held
	// Cond lists the contexts held depending on a variable's value, Facts
	// what the path says of variables' values (retheld.go).
	Cond  []CondHeld
	Facts []Fact
	// Dead marks an unreachable point (after return, goto, break).
	Dead bool
}

// Clone returns a copy that can be changed independently.
func (s State) Clone() State {
	return State{Held: append([]Held(nil), s.Held...), Dead: s.Dead,
		Cond: append([]CondHeld(nil), s.Cond...), Facts: append([]Fact(nil), s.Facts...)}
}

// Empty reports whether no context is held.
func (s State) Empty() bool { return len(s.Held) == 0 }

// AnyMust reports whether some context is held on every path.
func (s State) AnyMust() bool {
	for _, h := range s.Held {
		if h.Must {
			return true
		}
	}
	return false
}

func (s *State) acquire(h Held) {
	s.Held = append(s.Held, h)
}

// Release leaves the context matching kind and key (by key first, else
// the most recent of the kind). It reports false when nothing matched:
// the function releases a context its caller entered.
func (s *State) Release(kind, key string) (Held, bool) {
	idx := -1
	if key != "" {
		for i := len(s.Held) - 1; i >= 0; i-- {
			if s.Held[i].Kind == kind && s.Held[i].Key == key {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		for i := len(s.Held) - 1; i >= 0; i-- {
			if s.Held[i].Kind == kind {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		return Held{}, false
	}
	h := s.Held[idx]
	s.Held = append(s.Held[:idx:idx], s.Held[idx+1:]...)
	return h, true
}

// AcquiringCall returns the name of the call that took h: the last step
// of a helper chain, with a guard's class standing for its lock call
// (guard(spinlock_bh)(&l), scoped_guard(spinlock_irqsave, &l)).
func (h Held) AcquiringCall() string {
	at := h.At
	if len(h.Via) > 0 {
		at = h.Via[len(h.Via)-1]
	}
	name, rest, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(at.What), "calls "), "(")
	if !ok {
		return ""
	}
	if name == "guard" || name == "scoped_guard" {
		class, _, _ := strings.Cut(rest, ")")
		class, _, _ = strings.Cut(class, ",")
		return strings.TrimSpace(class)
	}
	return name
}

func sameHeld(a, b Held) bool {
	return a.Kind == b.Kind && a.Key == b.Key
}

// mergeStates joins two control-flow paths: contexts held on both keep
// their must flag (and-ed), contexts held on one only become "some path".
// A context entered through a different lock on each path ("if (root)
// spin_lock_bh(a); else spin_lock_bh(b);") is a context of that kind held
// on both, with no key.
func mergeStates(a, b State) State {
	if a.Dead {
		return b.Clone()
	}
	if b.Dead {
		return a.Clone()
	}
	out := State{Held: make([]Held, len(a.Held))}
	copy(out.Held, a.Held)
	matched := make([]bool, len(a.Held))
	used := make([]bool, len(b.Held))
	for i, x := range a.Held {
		for j, y := range b.Held {
			if !used[j] && sameHeld(x, y) {
				used[j], matched[i] = true, true
				out.Held[i].Must = x.Must && y.Must
				break
			}
		}
	}
	for i, x := range a.Held {
		if matched[i] || !x.Must {
			continue
		}
		for j, y := range b.Held {
			if !used[j] && y.Must && y.Kind == x.Kind {
				used[j], matched[i] = true, true
				out.Held[i].Key = ""
				break
			}
		}
	}
	for i := range out.Held {
		if !matched[i] {
			out.Held[i].Must = false
		}
	}
	for j, y := range b.Held {
		if !used[j] {
			y.Must = false
			out.Held = append(out.Held, y)
		}
	}
	mergeConds(a, b, &out)
	return out
}

var deadState = State{Dead: true}

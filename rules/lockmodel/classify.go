package lockmodel

import "github.com/autosel-bot/autosel-bot/cscan"

// Op is what a call does to the lock state.
type Op int

const (
	// None: the call is no lock primitive.
	None Op = iota
	// Take enters the context (spin_lock(), rcu_read_lock()).
	Take
	// Drop leaves it (spin_unlock(), rcu_read_unlock()).
	Drop
	// TryTake enters it only when the call returns true (spin_trylock(),
	// atomic_dec_and_lock()).
	TryTake
	// Guard holds it to the end of the enclosing block
	// (guard(spinlock)(&l)).
	Guard
	// ScopedGuard holds it over the statement that follows
	// (scoped_guard(spinlock, &l) { ... }).
	ScopedGuard
)

// Action is one call classified by the lock model: every rule reads locks
// through it, so a primitive means the same thing to the walker, the
// summaries and the wake-up checks.
type Action struct {
	// Op is what the call does; None for other calls.
	Op Op
	// Kind is the context kind; "" for a guard whose class holds
	// nothing the model keeps (the call is still a guard, not a callee).
	Kind string
	// Arg is the argument naming the lock (-1: none; 1 for guards).
	Arg int
	// Key is the normalised lock expression ("" when none).
	Key string
	// EndsBH is set on a Drop that also re-enables bottom halves
	// (spin_unlock_bh()): it ends a local_bh_disable() taken before the
	// lock, as in netif_addr_lock_bh() (table key ends_bh).
	EndsBH bool
}

// Classify returns what call c does to the lock state.
func (m *Model) Classify(c cscan.Call) Action {
	if p, ok := m.acquire[c.Name]; ok {
		return Action{Op: Take, Kind: p.Kind, Arg: p.Arg, Key: ArgKey(c, p.Arg)}
	}
	if p, ok := m.release[c.Name]; ok {
		return Action{Op: Drop, Kind: p.Kind, Arg: p.Arg, Key: ArgKey(c, p.Arg), EndsBH: m.endsBH[c.Name]}
	}
	if c.Name == "guard" || c.Name == "scoped_guard" {
		op := Guard
		if c.Name == "scoped_guard" {
			op = ScopedGuard
		}
		kind, key, _ := m.Guard(c)
		return Action{Op: op, Kind: kind, Arg: 1, Key: key}
	}
	if p, ok := m.trylock[c.Name]; ok {
		return Action{Op: TryTake, Kind: p.Kind, Arg: p.Arg, Key: ArgKey(c, p.Arg)}
	}
	return Action{Op: None, Arg: -1}
}

package lockmodel

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

func TestClassify(t *testing.T) {
	m, err := Compile(&Table{
		Acquire: []Row{{Names: []string{"spin_lock_bh"}, Kind: "spin", Arg: 0}, {Names: []string{"rcu_read_lock"}, Kind: "rcu", Arg: -1},
			{Names: []string{"mutex_lock"}, Kind: "mutex", Arg: 0}, {Names: []string{"bit_spin_lock"}, Kind: "spin", Arg: 1}},
		Release: []Row{{Names: []string{"spin_unlock_bh", "spin_unlock"}, Kind: "spin", Arg: 0}, {Names: []string{"mutex_unlock"}, Kind: "mutex", Arg: 0}},
		Trylock: []Row{{Names: []string{"spin_trylock", "atomic_dec_and_lock"}, Kind: "spin", Arg: 0, ArgOf: map[string]int{"atomic_dec_and_lock": 1}}},
		Guards:  map[string]string{"spinlock": "spin", "migrate": "", "mutex": "mutex"},
		EndsBH:  []string{"spin_unlock_bh"},
	}, func(kind string) bool { return Atomic[kind] })
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args ...string) cscan.Call { return cscan.Call{Name: name, Args: args} }
	for _, tc := range []struct {
		c    cscan.Call
		want Action
	}{
		{call("spin_lock_bh", "&(q->lock)"), Action{Op: Take, Kind: "spin", Arg: 0, Key: "q->lock"}},
		{call("spin_unlock_bh", "&q->lock"), Action{Op: Drop, Kind: "spin", Arg: 0, Key: "q->lock", EndsBH: true}},
		{call("spin_unlock", "&q->lock"), Action{Op: Drop, Kind: "spin", Arg: 0, Key: "q->lock"}},
		{call("rcu_read_lock"), Action{Op: Take, Kind: "rcu", Arg: -1}},
		{call("bit_spin_lock", "0", "&b->state"), Action{Op: Take, Kind: "spin", Arg: 1, Key: "b->state"}},
		{call("atomic_dec_and_lock", "&r", "&l"), Action{Op: TryTake, Kind: "spin", Arg: 1, Key: "l"}},
		{call("guard", "spinlock", "&d->lock"), Action{Op: Guard, Kind: "spin", Arg: 1, Key: "d->lock"}},
		{call("scoped_guard", "spinlock", "&d->lock"), Action{Op: ScopedGuard, Kind: "spin", Arg: 1, Key: "d->lock"}},
		// A class that holds nothing is still a guard, not a callee.
		{call("guard", "migrate"), Action{Op: Guard, Arg: 1}},
		// mutex rows are dropped by the atomic-only keep: no primitive.
		{call("mutex_lock", "&m"), Action{Op: None, Arg: -1}},
		{call("guard", "mutex", "&m"), Action{Op: Guard, Arg: 1}},
		{call("kmalloc", "n", "GFP_KERNEL"), Action{Op: None, Arg: -1}},
	} {
		if got := m.Classify(tc.c); got != tc.want {
			t.Errorf("Classify(%s%q) = %+v, want %+v", tc.c.Name, tc.c.Args, got, tc.want)
		}
	}
}

func TestCompileEndsBHMustRelease(t *testing.T) {
	_, err := Compile(&Table{Acquire: []Row{{Names: []string{"spin_lock_bh"}, Kind: "spin"}}, EndsBH: []string{"spin_lock_bh"}}, nil)
	if err == nil {
		t.Fatal("ends_bh naming an acquire compiled")
	}
}

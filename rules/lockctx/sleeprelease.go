package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A few sleeping primitives must be called with a spinlock held and
// release it while they sleep: wait_event_lock_irq(wq, cond, lock) drops
// lock around schedule(), wait_event_interruptible_locked(wq, cond) the
// queue's own lock. That lock is no atomic context for them, unless it
// was taken with spin_lock_bh() (they unlock with spin_unlock_irq(), which
// leaves bottom halves disabled); any other context held is. A lock the
// function's caller holds is a drop of the reach, whatever way the caller
// took it.

// SleepReleaser is a Target with primitives that reach it with a
// spinlock released that their caller holds.
type SleepReleaser interface {
	// ReleasedWhileSleeping returns the key of the lock call c releases
	// while it reaches the target (lockmodel.Key).
	ReleasedWhileSleeping(c cscan.Call) (key string, ok bool)
}

// withoutReleased returns st without the spinlock primitive c releases
// while it reaches the target, and the drop of the caller's lock to note
// on c's reach when st does not hold it (the function's caller does); st
// and nil for any other call.
func (r *Resolver) withoutReleased(c cscan.Call, st State, here report.Step) (State, *Effect) {
	sr, ok := r.m.target.(SleepReleaser)
	if !ok {
		return st, nil
	}
	key, ok := sr.ReleasedWhileSleeping(c)
	if !ok || key == "" {
		return st, nil
	}
	for i, h := range st.Held {
		if h.Key == key && (h.Kind == "spin" || h.Kind == "raw_spin") {
			if strings.HasSuffix(h.AcquiringCall(), "_bh") {
				// The wait unlocks with spin_unlock_irq(): bottom
				// halves stay disabled while it sleeps.
				return st, nil
			}
			out := st.Clone()
			out.Held = append(out.Held[:i:i], out.Held[i+1:]...)
			return out, nil
		}
	}
	return st, &Effect{Kind: "spin", Key: key, Steps: []report.Step{here}}
}

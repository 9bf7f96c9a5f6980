package lockctx

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// withMemberEffects adds to the summary of a call through a struct
// member the contexts its implementations return holding or release: a
// map/unmap or lock/unlock pair of ops (zpool_driver.map is zsmalloc's
// zs_zpool_map(), which returns with a local_lock held until .unmap).
// An implementation that returns holding a context makes the call
// return holding it, as a caller written for every implementation must
// not sleep before the release; only struct-typed resolutions count
// (a member name alone matches unrelated structs).
func (r *Resolver) withMemberEffects(s *Summary, c cscan.Call, caller *cscan.Func) *Summary {
	targets := r.PointerTargets(c, caller)
	var acq, cond, drops []Effect
	for _, t := range targets {
		if t.Heuristic {
			return s
		}
		ts := r.SummaryOf(t.Func)
		via := func(es []Effect, drop bool) []Effect {
			out := make([]Effect, 0, len(es))
			for _, e := range es {
				if drop {
					e.Steps = dropSteps(ViaStep(t), e.Steps)
				} else {
					e.Steps = append([]report.Step{ViaStep(t)}, e.Steps...)
				}
				out = append(out, e)
			}
			return out
		}
		acq = addEffects(acq, via(ts.Acquires, false))
		cond = addEffects(cond, via(ts.CondAcquires, false))
		drops = addEffects(drops, via(ts.Drops, true))
	}
	if len(acq)+len(cond)+len(drops) == 0 {
		return s
	}
	out := &Summary{}
	if s != nil {
		*out = *s
	}
	out.Acquires = addEffects(append([]Effect(nil), out.Acquires...), acq)
	out.CondAcquires = addEffects(append([]Effect(nil), out.CondAcquires...), cond)
	out.Drops = addEffects(append([]Effect(nil), out.Drops...), drops)
	return out
}

package lockctx

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// TestReleaseDrop: a callee's release ends the caller's context of its
// kind when it is keyless, written in the callee itself, or names the
// same lock; a lock released further down under another name is not the
// caller's.
func TestReleaseDrop(t *testing.T) {
	in := func(fn string) []report.Step { return []report.Step{{Func: fn, What: "spin_unlock()"}} }
	deep := []report.Step{{Func: "cmd", What: "calls put()"}, {Func: "obj_unlock", What: "spin_unlock()"}}
	for _, tc := range []struct {
		name string
		held []Held
		drop Effect
		want bool
		left int
	}{
		{"keyless", []Held{{Kind: "rcu"}}, Effect{Kind: "rcu", Steps: deep}, true, 0},
		{"written in the callee", []Held{{Kind: "spin", Key: "q->lock"}}, Effect{Kind: "spin", Key: "queue->lock", Steps: in("q_unlock")}, true, 0},
		{"deep, same expression", []Held{{Kind: "spin", Key: "memcg->move_lock"}}, Effect{Kind: "spin", Key: "memcg->move_lock", Steps: deep}, true, 0},
		{"deep, same last member", []Held{{Kind: "spin", Key: "q->o.move_lock"}}, Effect{Kind: "spin", Key: "o->move_lock", Steps: deep}, true, 0},
		{"deep, caller's lock unnamed", []Held{{Kind: "spin"}}, Effect{Kind: "spin", Key: "o->move_lock", Steps: deep}, true, 0},
		{"deep, another lock", []Held{{Kind: "spin", Key: "pmlmepriv->scanned_queue.lock"}}, Effect{Kind: "spin", Key: "memcg->move_lock", Steps: deep}, false, 1},
		{"deep, another kind", []Held{{Kind: "spin", Key: "q->lock"}}, Effect{Kind: "raw_spin", Key: "q->lock", Steps: deep}, false, 1},
		{"deep, the matching one of two", []Held{{Kind: "spin", Key: "a->move_lock"}, {Kind: "spin", Key: "q->lock"}}, Effect{Kind: "spin", Key: "o->move_lock", Steps: deep}, true, 1},
	} {
		st := State{Held: append([]Held(nil), tc.held...)}
		if got := st.releaseDrop(tc.drop, "q_unlock"); got != tc.want || len(st.Held) != tc.left {
			t.Errorf("%s: releaseDrop = %v with %d held, want %v with %d", tc.name, got, len(st.Held), tc.want, tc.left)
		}
	}
}

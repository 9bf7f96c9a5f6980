package lockctx

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// TestReleaseDrop: a callee's release ends the caller's context of its
// kind when it is a keyless per-CPU context, written in the callee
// itself, or names the same lock; a lock released further down under
// another name, or under none, is not the caller's named lock (a nameless
// one stops at it, and ends a nameless lock first).
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
		{"deep, same field's member", []Held{{Kind: "spin", Key: "q->o->move_lock"}}, Effect{Kind: "spin", Key: "o->move_lock", Steps: deep}, true, 0},
		{"deep, another field's lock", []Held{{Kind: "spin", Key: "pmlmepriv->scanned_queue.lock"}}, Effect{Kind: "spin", Key: "dev->power.lock", Steps: deep}, false, 1},
		{"deep, caller's lock unnamed", []Held{{Kind: "spin"}}, Effect{Kind: "spin", Key: "o->move_lock", Steps: deep}, true, 0},
		{"deep, another lock", []Held{{Kind: "spin", Key: "pmlmepriv->scanned_queue.lock"}}, Effect{Kind: "spin", Key: "memcg->move_lock", Steps: deep}, false, 1},
		{"no chain", []Held{{Kind: "spin", Key: "q->lock"}}, Effect{Kind: "spin", Key: "other->lock"}, true, 0},
		{"deep, a named match before an unnamed lock", []Held{{Kind: "spin", Key: "q->o.move_lock"}, {Kind: "spin"}}, Effect{Kind: "spin", Key: "o->move_lock", Steps: deep}, true, 1},
		{"through a member, written in the implementation", []Held{{Kind: "spin", Key: "q->lock"}}, Effect{Kind: "spin", Key: "queue->lock", Steps: in("q_unlock_impl")}, true, 0},
		{"deep, another kind", []Held{{Kind: "spin", Key: "q->lock"}}, Effect{Kind: "raw_spin", Key: "q->lock", Steps: deep}, false, 1},
		{"deep, nameless, a named lock held", []Held{{Kind: "spin", Key: "priv->lock"}}, Effect{Kind: "spin", Steps: deep}, true, 1},
		{"deep, nameless, a nameless lock under a named one", []Held{{Kind: "spin"}, {Kind: "spin", Key: "priv->lock"}}, Effect{Kind: "spin", Steps: deep}, true, 1},
		{"deep, nameless, nothing of its kind", []Held{{Kind: "rcu"}}, Effect{Kind: "spin", Steps: deep}, false, 1},
		{"deep, nameless mutex, a named mutex held", []Held{{Kind: "mutex", Key: "dev->mutex"}}, Effect{Kind: "mutex", Steps: deep}, true, 1},
		{"written, nameless, a named lock held", []Held{{Kind: "spin", Key: "priv->lock"}}, Effect{Kind: "spin", Steps: in("q_unlock")}, true, 0},
		{"deep, the matching one of two", []Held{{Kind: "spin", Key: "a->o.move_lock"}, {Kind: "spin", Key: "q->lock"}}, Effect{Kind: "spin", Key: "o->move_lock", Steps: deep}, true, 1},
	} {
		st := State{Held: append([]Held(nil), tc.held...)}
		if got := st.ReleaseDrop(tc.drop); got != tc.want || len(st.Held) != tc.left {
			t.Errorf("%s: ReleaseDrop = %v with %d held, want %v with %d", tc.name, got, len(st.Held), tc.want, tc.left)
		}
	}
}

// TestDropsInCaller: a callee's lock named through its parameter is named
// through the argument the call passes; other locks keep their names.
func TestDropsInCaller(t *testing.T) {
	src := `
void q_unlock(struct q *queue, struct obj *o)
{
	spin_unlock(&queue->lock);
}

void f(struct q *q, struct dev *d)
{
	q_unlock(q, &d->o);
}
`
	ix := openTree(t, map[string]string{"a.c": src})
	r := NewResolver(testModel(t), ix, nil)
	caller := funcNamed(t, ix, "f")
	c := caller.Calls[0]
	for _, tc := range []struct{ key, want string }{
		{"queue->lock", "q->lock"},
		{"o->move_lock", "o->move_lock"},
		{"other->lock", "other->lock"},
		{"rq_lockp(rq)", "rq_lockp(rq)"},
		{"", ""},
	} {
		in := []Effect{{Kind: "spin", Key: tc.key}}
		got := r.dropsInCaller(in, c, caller)
		if got[0].Key != tc.want {
			t.Errorf("dropsInCaller(%q) = %q, want %q", tc.key, got[0].Key, tc.want)
		}
		if in[0].Key != tc.key {
			t.Errorf("dropsInCaller(%q) changed its input to %q", tc.key, in[0].Key)
		}
	}
}

// TestReleaseDropNamelessEndsNameless: of a nameless and a named lock, a
// nameless release from further down ends the nameless one.
func TestReleaseDropNamelessEndsNameless(t *testing.T) {
	deep := []report.Step{{Func: "cmd", What: "calls put()"}, {Func: "obj_unlock", What: "xas_unlock_irq(xas)"}}
	st := State{Held: []Held{{Kind: "spin"}, {Kind: "spin", Key: "priv->lock"}}}
	if !st.ReleaseDrop(Effect{Kind: "spin", Steps: deep}) || len(st.Held) != 1 || st.Held[0].Key != "priv->lock" {
		t.Errorf("held after the release: %+v, want priv->lock alone", st.Held)
	}
}

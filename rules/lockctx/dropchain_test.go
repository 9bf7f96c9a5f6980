package lockctx

import (
	"slices"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestDropChainKeepsEnds: a release made three calls down reaches the
// top function's summary as two steps, its own call and the release
// itself, however deep the chain (the middle steps are never read and
// would be copied into every caller's summary).
func TestDropChainKeepsEnds(t *testing.T) {
	src := "void d(spinlock_t *l)\n{\n\tspin_unlock(l);\n}\n\n" +
		"void c(spinlock_t *l)\n{\n\td(l);\n}\n\n" +
		"void b(spinlock_t *l)\n{\n\tc(l);\n}\n\n" +
		"void a(spinlock_t *l)\n{\n\tb(l);\n}\n"
	f := cscan.ParseFile("a.c", []byte(src))
	patch := map[string][]*cscan.Func{}
	for _, fn := range f.Funcs {
		patch[fn.Name] = append(patch[fn.Name], fn)
	}
	r := NewResolver(testModel(t), nil, patch)
	for _, name := range []string{"a", "b", "c"} {
		s := r.SummaryOf(patch[name][0])
		if len(s.Drops) != 1 {
			t.Fatalf("%s: drops %+v, want one", name, s.Drops)
		}
		steps := s.Drops[0].Steps
		if len(steps) != 2 || steps[0].Func != name || steps[1].Func != "d" || steps[1].What != "spin_unlock(l)" {
			t.Errorf("%s: drop steps %+v, want %s's call and d's spin_unlock(l)", name, steps, name)
		}
	}
}

// TestCallerDrops: a release passed up from a callee stays in a
// summary when the caller can name its lock (through the function's
// parameter, a global, a member path, or a callee's parameter passed an
// expression, which lockName matches), and is left out when it names a
// local of the function (what no caller holds).
func TestCallerDrops(t *testing.T) {
	hdr := `struct q { spinlock_t lock; struct { spinlock_t lock; } sub; };
struct r { struct q *q; };
extern struct q shared_q;
`
	src := `#include "q.h"

static struct q gq;

void rel(struct q *p)
{
	spin_unlock(&p->lock);
}

void by_param(struct q *x)
{
	rel(x);
}

void by_local(struct q *p)
{
	struct q *loc = p;

	rel(loc);
}

void rel_global(void)
{
	spin_unlock(&gq.lock);
}

void by_global(void)
{
	rel_global();
}

void rel_shared(void)
{
	spin_unlock(&shared_q.lock);
}

void by_shared(void)
{
	rel_shared();
}

void rel_path(struct q *p)
{
	struct q *o = p;

	spin_unlock(&o->sub.lock);
}

void by_path(struct q *p)
{
	rel_path(p);
}

void relq(struct q *q)
{
	spin_unlock(&q->lock);
}

void by_expr(struct r *dev)
{
	relq(dev->q);
}

void rel_loc(struct q *loc)
{
	spin_unlock(&loc->lock);
}

void by_shadow(struct q *x)
{
	struct q *loc = x;

	rel_loc(x);
}

void top(struct r *dev)
{
	spin_lock(&dev->q->lock);
	by_expr(dev);
}
`
	ix := openTree(t, map[string]string{"q.h": hdr, "a.c": src})
	r := NewResolver(testModel(t), ix, nil)
	for _, tc := range []struct {
		fn         string
		drops, acq []string
	}{
		{"rel", []string{"p->lock"}, nil},
		{"by_param", []string{"x->lock"}, nil},
		{"by_local", nil, nil},
		{"by_global", []string{"gq.lock"}, nil},
		{"by_shared", []string{"shared_q.lock"}, nil},
		{"rel_path", []string{"o->sub.lock"}, nil},
		{"by_path", []string{"o->sub.lock"}, nil},
		{"by_expr", []string{"q->lock"}, nil},
		{"by_shadow", []string{"x->lock"}, nil},
		{"top", nil, nil},
	} {
		s := r.SummaryOf(funcNamed(t, ix, tc.fn))
		if got := effectKeys(s.Drops); !slices.Equal(got, tc.drops) {
			t.Errorf("%s: drops %q, want %q", tc.fn, got, tc.drops)
		}
		if got := effectKeys(s.Acquires); !slices.Equal(got, tc.acq) {
			t.Errorf("%s: held on return %q, want %q", tc.fn, got, tc.acq)
		}
	}
}

// effectKeys returns the keys of es, in order.
func effectKeys(es []Effect) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Key)
	}
	return out
}

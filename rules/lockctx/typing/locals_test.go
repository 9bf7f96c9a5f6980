package typing

import (
	"maps"
	"slices"
	"testing"

	"github.com/autosel-bot/autosel-bot/index/indextest"
)

// TestLocals: every declarator of a run of declarations counts, and a
// struct tag in an expression, a cast, a product or a return does not.
func TestLocals(t *testing.T) {
	src := `void f(struct q *p, struct q *x, int n)
{
	struct q *a;
	struct q *b;
	struct q *c = p;
	struct r *dev = container_of(p, struct r, q);
	int size = sizeof(struct inode);

	(struct q *)x;
	n = n * width;
	size = c->len * height;
	return n;
}
`
	ix := indextest.Open(t, map[string]string{"a.c": src})
	ty := New(ix, nil)
	got := slices.Sorted(maps.Keys(ty.Locals(ix.Funcs("f")[0])))
	want := []string{"a", "b", "c", "dev", "n", "p", "size", "x"}
	if !slices.Equal(got, want) {
		t.Errorf("Locals = %q, want %q", got, want)
	}
}

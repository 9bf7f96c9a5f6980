package wakeup

import "testing"

func TestCondCore(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"!smp_load_acquire(&waiter.task)", "waiter.task"},
		{"READ_ONCE(w->done)", "w->done"},
		{"unlikely(!atomic_read(&m->n))", "atomic_read(&m->n)"},
		{"(!(x->flags & BUSY))", "x->flags & BUSY"},
		{"READ_ONCE(w->done) && !w->dead", "w->done && !w->dead"},
	} {
		if a, b := condCore(tc.a), condCore(tc.b); a != b {
			t.Errorf("condCore(%q) = %q, condCore(%q) = %q: want the same", tc.a, a, tc.b, b)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"!a && b", "a && !b"},
		{"a & b", "a && b"},
		{"a && (b || c)", "(a && b) || c"},
		{"x != y", "x == y"},
		{"f(x) && y", "fx && y"},
	} {
		if a, b := condCore(tc.a), condCore(tc.b); a == b {
			t.Errorf("condCore(%q) = condCore(%q) = %q: want them apart", tc.a, tc.b, a)
		}
	}
}

func TestTestedCond(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"\t\tif (!READ_ONCE(w->done))", "w->done"},
		{"\t} while (atomic_read(&n->count));", "atomic_read(&n->count)"},
		{"\t\tio_schedule();", ""},
	} {
		if got := testedCond(tc.line); got != tc.want {
			t.Errorf("testedCond(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

package lockctx

import "testing"

// TestNegate: a condition's negation by its shape (De Morgan for
// conjunctions and disjunctions, turned comparisons, a dropped or added
// "!"), and the terms a condition splits into.
func TestNegate(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a", "!a"},
		{"!a", "a"},
		{"!(a && b)", "a && b"},
		{"p->buf == static_buf", "p->buf != static_buf"},
		{"n <= SIZE", "n > SIZE"},
		{"n < SIZE", "n >= SIZE"},
		{"n >= SIZE", "n < SIZE"},
		{"x->y > 0", "x->y <= 0"},
		{"a == b && n > SIZE", "a != b || n <= SIZE"},
		{"unlikely(a || !b)", "!a && b"},
		{"a && (b || c)", "!a || (!b && !c)"},
		{"(a || b) && c", "(!a && !b) || !c"},
		{"a || b && c", "!a && (!b || !c)"},
		{"in_atomic()", "!in_atomic()"},
		{"flags & BIT(3)", "!(flags & BIT(3))"},
		{"x << 2 == y", "x << 2 != y"},
		{"!a == b", "!a != b"},
		{"!x->flags & F", "!(!x->flags & F)"},
		{"a == b ? c : d", "!(a == b ? c : d)"},
		{"!(a & b)", "a & b"},
		{"!*p", "*p"},
		{"*p", "!*p"},
	} {
		if got := Negate(c.in); got != c.want {
			t.Errorf("Negate(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Terms(" likely(a) && (b || c) && !d ", "&&"); len(got) != 3 || got[0] != "a" || got[1] != "b || c" || got[2] != "!d" {
		t.Errorf("Terms = %q", got)
	}
	if got := Terms("a || b && c", "&&"); len(got) != 1 {
		t.Errorf("Terms of a disjunction split at && = %q", got)
	}
}

package wakeup

import "testing"

// TestResetForms: which stores reset a member (resetOn), which wait
// conditions a reset ends rather than re-arms (resetEndsWait), and the
// negation of a sleep's guard term (negate).
func TestResetForms(t *testing.T) {
	for _, c := range []struct {
		cond, field, bit string
		want             bool
	}{
		{"!READ_ONCE(x->done)", "done", "", true},
		{"!(x->done)", "done", "", true},
		{"!(READ_ONCE(x->done))", "done", "", true},
		{"atomic_read(&x->cnt) == 0", "cnt", "", true},
		{"x->busy[0] == 0", "busy", "", true},
		{"d->done != 0", "done", "", false},
		{"!!x->done", "done", "", false},
		{"READ_ONCE(x->done)", "done", "", false},
		{"!test_bit(FOO, &x->flags)", "flags", "FOO", true},
		{"test_bit(FOO, &x->flags) == 0", "flags", "FOO", true},
		{"test_bit(FOO, &x->flags)", "flags", "FOO", false},
	} {
		if got := resetEndsWait(c.cond, c.field, c.bit); got != c.want {
			t.Errorf("%q: %v", c.cond, got)
		}
	}
	for _, c := range []struct{ line, field string }{
		{"xchg(&x->ptr, NULL);", "ptr"}, {"smp_store_release(x->done_p, 0);", ""}, {"atomic_set(&x->cnt, 0U);", "cnt"}, {"x->done = 0;", "done"},
	} {
		if f, _ := resetOn(c.line); f != c.field {
			t.Errorf("%q: %q", c.line, f)
		}
	}
	for _, c := range []struct{ in, want string }{{"!d->done", "d->done"}, {"!d->done || d->err", "!(!d->done || d->err)"}, {"(!x)", "x"}, {"x", "!(x)"}, {"!!x", "!(!!x)"}} {
		if got := negate(c.in); got != c.want {
			t.Errorf("negate %q = %q", c.in, got)
		}
	}
}

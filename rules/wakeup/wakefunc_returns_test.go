package wakeup

import "testing"

func TestPointerStoreRe(t *testing.T) {
	for _, c := range []struct {
		body string
		want bool
	}{
		{"unsigned long priv = (unsigned long)wait->private; return (struct r *)(priv & ~1UL);", false},
		{"return container_of(w, struct x, wait);", false},
		{"return w->a == b->c;", false},
		{"req->flags |= 1; return req;", true},
		{"w.done = true;", true},
		{"w->n++;", true},
		{"--w->n;", true},
		{"*p = 0;", true},
		{"return a != b->c;", false},
		{"return a <= b->c;", false},
		{"{ \t*p = 1; }", true},
		{"{ *p += 1; }", true},
		{"{ (*p)++; }", true},
		{"{ *(p) = 0; }", true},
		{"{ p[i] = 0; }", true},
		{"{ x->a[i][j] = 0; }", true},
		{"{ return p[i] == 0; }", false},
		{"{ return *p == 0; }", false},
		{"{ return a * b; }", false},
	} {
		if got := pointerStoreRe.MatchString(c.body); got != c.want {
			t.Errorf("pointerStoreRe(%q) = %v, want %v", c.body, got, c.want)
		}
	}
}

package wakeup

import "testing"

func TestTypedLockKey(t *testing.T) {
	vt := newVarTypes()
	vt.scan("struct dm_bufio_client *c, *current_client;\nspinlock_t lk;\nstruct foo f;\n")
	for _, tc := range []struct{ arg, want string }{
		{"&c->lock", "dm_bufio_client.lock"},
		{"&current_client->lock", "dm_bufio_client.lock"},
		{"&f.wq.lock", "foo.wq.lock"},
		{"&global_lock", "a.c:global_lock"},
		{"&lk", ""},      // a local lock: no name outside the function
		{"&x->lock", ""}, // an untyped object
		{"&get_dev()->lock", ""},
	} {
		if got := typedLockKey(tc.arg, vt, "fn", "a.c"); got != tc.want {
			t.Errorf("typedLockKey(%q) = %q, want %q", tc.arg, got, tc.want)
		}
	}
}

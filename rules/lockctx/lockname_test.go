package lockctx

import (
	"strings"
	"testing"
)

// splitLockName is lockName by splitting, the definition it must agree
// with.
func splitLockName(key string) string {
	parts := strings.FieldsFunc(strings.ReplaceAll(key, "->", "."), func(r rune) bool { return r == '.' })
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, ".")
}

// TestLockName: the last two names of a lock expression, "->" read as
// ".", empty parts skipped.
func TestLockName(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"pmlmepriv->scanned_queue.lock", "scanned_queue.lock"},
		{"dev->power.lock", "power.lock"},
		{"q->o->move_lock", "o.move_lock"},
		{"q->lock", "q.lock"},
		{"lock", "lock"},
		{"", ""},
		{"a.b", "a.b"},
		{"a..b", "a.b"},
		{".a", "a"},
		{"a->", "a"},
		{"x-y->z", "x-y.z"},
		{"a-->b", "a-.b"},
		{"&d->lock", "&d.lock"},
		{"s->a[0].lock", "a[0].lock"},
	} {
		if got := lockName(tc.key); got != tc.want {
			t.Errorf("lockName(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

// FuzzLockName: lockName agrees with splitting the expression.
func FuzzLockName(f *testing.F) {
	for _, s := range []string{"q->o->move_lock", "a..b", "->", "-->.", "x.y->z.w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if got, want := lockName(key), splitLockName(key); got != want {
			t.Errorf("lockName(%q) = %q, split gives %q", key, got, want)
		}
	})
}

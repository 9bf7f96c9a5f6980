package lockctx

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

func TestNarrowings(t *testing.T) {
	const z, e, p = summary.RetZero, summary.RetErr, summary.RetPos
	for _, c := range []struct {
		cond, subject string
		then, els     RetClass
	}{
		{"unlikely(sighand == NULL)", "sighand", z, e | p},
		{"ret < 0", "ret", e, z | p},
		{"!lock_task_sighand(task, &flags)", "lock_task_sighand(task, &flags)", z, e | p},
		{"IS_ERR(p)", "p", e, z | p},
		{"x && y", "y", e | p, summary.RetAny},
		{"ret >= 0", "ret", z | p, e},
		{"NULL != p", "p", e | p, z},
	} {
		var got *narrowing
		for _, n := range narrowings(c.cond) {
			if n.subject == c.subject {
				got = &n
			}
		}
		if got == nil || got.then != c.then || got.els != c.els {
			t.Errorf("narrowings(%q) = %+v, want %s then %v else %v", c.cond, narrowings(c.cond), c.subject, c.then, c.els)
		}
	}
	if n := narrowings("a == b"); len(n) != 0 {
		t.Errorf("a == b: %+v", n)
	}
}

func TestAssignment(t *testing.T) {
	for _, c := range []struct{ text, v, rhs string }{
		{"ret = mlxbf2_gpio_lock_acquire(gs);", "ret", "mlxbf2_gpio_lock_acquire(gs)"},
		{"struct sighand_struct *sighand = lock(t);", "sighand", "lock(t)"},
		{"x += 2;", "x", ""},
	} {
		v, rhs, ok := assignment(c.text)
		if !ok || v != c.v || rhs != c.rhs {
			t.Errorf("assignment(%q) = %q %q %v", c.text, v, rhs, ok)
		}
	}
	for _, text := range []string{"*p = 1;", "a == b;", "f(x = 1);"} {
		if v, _, ok := assignment(text); ok {
			t.Errorf("assignment(%q) = %q", text, v)
		}
	}
}

// TestWholeCall: a trylock's result is kept only when the right-hand side
// is the call alone.
func TestWholeCall(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{"spin_trylock(&l) ", true},
		{"get_locked_pte(mm, f(a), &ptl)", true},
		{"spin_trylock(&l) == 0", false},
		{"spin_trylock(&l) ? 0 : -EBUSY", false},
		{"spin_trylock(&l", false},
		{"other(&l)", false},
	} {
		name := "spin_trylock"
		if strings.HasPrefix(tc.expr, "get_") {
			name = "get_locked_pte"
		}
		if got := wholeCall(tc.expr, name); got != tc.want {
			t.Errorf("wholeCall(%q) = %v, want %v", tc.expr, got, tc.want)
		}
	}
}

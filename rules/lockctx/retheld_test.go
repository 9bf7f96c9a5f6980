package lockctx

import (
	"slices"
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

// TestForeverLoopReleases: a helper that drops its caller's lock inside
// a loop it leaves only by return, then returns with another lock held
// (fs-writeback's locked_inode_to_wb_and_lock_list()), releases the
// caller's lock; the caller that took it first returns with the other
// lock alone. A wait loop left by break, which unlocks, sleeps and
// relocks, releases nothing, and neither does a loop that retakes its
// own lock.
func TestForeverLoopReleases(t *testing.T) {
	src := `struct q { spinlock_t lock; struct w *wb; };
struct w { spinlock_t list_lock; };

static struct w *relock(struct q *inode)
{
	while (true) {
		struct w *wb = inode->wb;

		spin_unlock(&inode->lock);
		spin_lock(&wb->list_lock);
		if (likely(wb == inode->wb))
			return wb;
		spin_unlock(&wb->list_lock);
		spin_lock(&inode->lock);
	}
}

static struct w *lock_list(struct q *inode)
{
	spin_lock(&inode->lock);
	return relock(inode);
}

static void waitloop(struct q *inode)
{
	for (;;) {
		if (ready(inode))
			break;
		spin_unlock(&inode->lock);
		schedule();
		spin_lock(&inode->lock);
	}
}

static void waiter(struct q *inode)
{
	spin_lock(&inode->lock);
	waitloop(inode);
	spin_unlock(&inode->lock);
}

static void retake(struct q *inode)
{
	for (;;) {
		spin_lock(&inode->lock);
		if (ready(inode))
			return;
		spin_unlock(&inode->lock);
	}
}
`
	ix := openTree(t, map[string]string{"a.c": src})
	r := NewResolver(testModel(t), ix, nil)
	for _, tc := range []struct {
		fn         string
		acq, drops []string
	}{
		{"relock", []string{"wb->list_lock"}, []string{"inode->lock"}},
		{"lock_list", []string{"wb->list_lock"}, nil},
		{"waitloop", nil, nil},
		{"waiter", nil, nil},
	} {
		s := r.SummaryOf(funcNamed(t, ix, tc.fn))
		if got := effectKeys(s.Acquires); !slices.Equal(got, tc.acq) {
			t.Errorf("%s: held on return %q, want %q", tc.fn, got, tc.acq)
		}
		if got := effectKeys(s.Drops); !slices.Equal(got, tc.drops) {
			t.Errorf("%s: releases %q, want %q", tc.fn, got, tc.drops)
		}
	}
	// The flat summary alone: the unlock follows the loop's own lock.
	if s, _ := r.flatSummary(funcNamed(t, ix, "retake")); len(s.Drops) != 0 {
		t.Errorf("retake: flat releases %q, want none", effectKeys(s.Drops))
	}
}

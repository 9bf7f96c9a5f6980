package lockctx

import (
	"context"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// lossCallers are callers of the recursive component (ra, rb) of
// lossTree: rown reaches a sleep of its own first, rtop holds a lock
// around it, rabove is above rown, and rthrough reaches it only through
// the component.
const lossCallers = `void rown(void)
{
	sleep_short();
	ra(1);
}

void rtop(void)
{
	spin_lock(&l);
	ra(2);
	spin_unlock(&l);
}

void rabove(void)
{
	rown();
}

void rthrough(void)
{
	rb(3);
}
`

// lossTree is a recursive component (ra, rb) that reaches what rleaf
// does (LEAF) only through rleaf.
const lossTree = `void rleaf(void)
{
	LEAF
}

void ra(int n)
{
	rb(n - 1);
}

void rb(int n)
{
	ra(n);
	rleaf();
}
`

// TestStoredLossRederives: a patch that takes something away (a sleep,
// a release of the caller's lock) dirties the stored summaries derived
// through it, round the recursive component too, and only those:
// callers whose facts come from elsewhere keep their stored summaries,
// and every summary in the view is what computing it without a store
// gives (a component's members must not keep the lost fact alive
// through each other's stored summaries).
func TestStoredLossRederives(t *testing.T) {
	m := testModel(t)
	for _, tc := range []struct {
		name, before, after string
		// dirty are the functions summarised again, clean those kept.
		dirty, clean []string
	}{
		{"sleep taken away", "sleep_long();", "quiet();",
			[]string{"ra", "rb", "rthrough"}, []string{"rown", "rtop", "rabove"}},
		// Every caller has rleaf's release (rown after its sleep).
		{"release taken away", "spin_unlock(&l);", "quiet();",
			[]string{"ra", "rb", "rthrough", "rown", "rabove", "rtop"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := map[string]string{"r.c": strings.Replace(lossTree, "LEAF", tc.before, 1), "s.c": lossCallers}
			ix := openCachedTree(t, tree)
			if err := Prepare(context.Background(), m, ix, nil); err != nil {
				t.Fatal(err)
			}
			src := strings.Replace(lossTree, "LEAF", tc.after, 1)
			view := ix.Overlay(map[string][]byte{"r.c": []byte(src)})
			patch := map[string][]*cscan.Func{"rleaf": view.Funcs("rleaf")}
			r := NewResolver(m, view, patch)
			if st := r.view.Stats(); st.Above != 0 {
				t.Errorf("%d functions dirtied with everything above them, want none", st.Above)
			}
			for i, names := range [][]string{tc.clean, tc.dirty} {
				for _, name := range names {
					ref, _ := ix.RefOf(funcNamed(t, ix, name))
					if got, want := r.view.Dirty(ref), i == 1; got != want {
						t.Errorf("%s dirty: %v, want %v", name, got, want)
					}
				}
			}
			sameAsComputed(t, m, view, patch, r, "r.c", "s.c")
			for _, name := range []string{"ra", "rb", "rthrough"} {
				if s := r.SummaryOf(funcNamed(t, view, name)); s != nil && (s.Reach != nil || len(s.Drops) > 0) {
					t.Errorf("%s keeps what rleaf lost: %s", name, summary.Append(nil, s))
				}
			}
		})
	}
}

package sleep

import (
	"context"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/rules"
)

// TestCheckerPreimages: a patch whose hunks do not apply to the tree has
// its functions analysed from their post-images, and the rule tells the
// post-patch resolver their pre-images: hunks that change nothing a
// summary holds leave the name neutral (calls reach the tree's version);
// hunks that add a sleeping call do not, nor does a patch that applies.
func TestCheckerPreimages(t *testing.T) {
	tree := "static DEFINE_SPINLOCK(lock);\n\nvoid helper(int a)\n{\n\tint x;\n\n\tx = a + 1;\n\tmsleep(x);\n}\n\nvoid caller(void)\n{\n\tspin_lock(&lock);\n\thelper(1);\n\tspin_unlock(&lock);\n}\n"
	dir := testtree.Dir(t, map[string]string{"lib/x.c": tree})
	ix, err := index.Open(context.Background(), dir, index.Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	m := sleepModel(t)
	// The context line "x = a + 2;" is not in the tree: the hunk does not
	// apply, and helper() is analysed from its post-image.
	patch := func(context, removed, added string) string {
		return "diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -5,4 +5,4 @@ void helper(int a)\n \tint x;\n \n" +
			context + "-" + removed + "+" + added + " }\n"
	}
	for _, tc := range []struct {
		name, diff string
		partial    bool
		neutral    bool
	}{
		{"hunks change no summary", patch(" \tx = a + 2;\n", "\tx++;\n", "\tx--;\n"), true, true},
		{"hunks add a sleeping call", patch(" \tx = a + 2;\n", "\tx++;\n", "\tmsleep(2);\n"), true, false},
		{"the patch applies", patch(" \tx = a + 1;\n", "\tmsleep(x);\n", "\tudelay(x);\n"), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := diffcheck.Parse(tc.diff)
			if err != nil {
				t.Fatal(err)
			}
			if err := diffcheck.ApplyTree(cs, diffcheck.DirTree(dir)); err != nil {
				t.Fatal(err)
			}
			if got := cs.ApplyError != ""; got != tc.partial {
				t.Fatalf("apply error %q, want one: %v", cs.ApplyError, tc.partial)
			}
			r := newChecker(rules.NewPass(cs, ix, rules.Options{}, 1), m)
			if got := r.newR.Neutral("helper"); got != tc.neutral {
				t.Errorf("helper neutral: %v, want %v", got, tc.neutral)
			}
		})
	}
}

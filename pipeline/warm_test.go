package pipeline

import (
	"context"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/series"
)

// TestAnalysisIndexWarm: after a series, what the index decoded is kept
// while within IndexWarm and released beyond it.
func TestAnalysisIndexWarm(t *testing.T) {
	dir := treeDir(t)
	ix, err := index.Open(context.Background(), dir, index.Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	// The rule reads both functions of the tree.
	readAll := &rules.Rule{Name: "test-read", Doc: "reads the tree", Run: func(p *rules.Pass) error {
		p.Index.Base().Funcs("helper")
		p.Index.Base().Funcs("caller")
		return nil
	}}
	p1 := "diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -3,4 +3,4 @@ static DEFINE_SPINLOCK(lock);\n static void helper(void)\n {\n-\tudelay(1);\n+\tmutex_lock(&m);\n }\n"
	s := &series.Series{ID: "a@x", Total: 1, Patches: []*series.Patch{{Number: 1, Msg: msg("a@x", "[PATCH] a", p1, 1)}}}
	for _, c := range []struct {
		budget, want int
	}{{0, 2}, {2, 2}, {1, 0}} {
		ix.Release()
		an, err := NewAnalysis(AnalysisOptions{Rules: []*rules.Rule{readAll}, Tree: dir, Index: ix, IndexWarm: c.budget}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (&Pipeline{Stages: []Stage{an}}).Run(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if n, _ := ix.Warm(); n != c.want {
			t.Errorf("budget %d: %d functions warm after the series, want %d", c.budget, n, c.want)
		}
	}
}

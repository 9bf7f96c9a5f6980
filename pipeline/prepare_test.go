package pipeline

import (
	"context"
	"log/slog"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/series"
)

// TestAnalysisPrepare: with Prepare set, each rule's Prepare runs once per
// index, over the underlying index, before the first patch is analysed;
// without it, never.
func TestAnalysisPrepare(t *testing.T) {
	dir := treeDir(t)
	p1 := "diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -3,4 +3,4 @@ static DEFINE_SPINLOCK(lock);\n static void helper(void)\n {\n-\tudelay(1);\n+\tmutex_lock(&m);\n }\n"
	for _, enabled := range []bool{true, false} {
		var prepared []*index.Index
		var runsBefore []int
		runs := 0
		rule := &rules.Rule{Name: "test-prepare", Doc: "counts",
			Run: func(p *rules.Pass) error { runs++; return nil },
			Prepare: func(ctx context.Context, ix *index.Index, log *slog.Logger) error {
				prepared = append(prepared, ix)
				runsBefore = append(runsBefore, runs)
				return nil
			}}
		an, err := NewAnalysis(AnalysisOptions{Rules: []*rules.Rule{rule}, Tree: dir,
			IndexOptions: index.Options{CacheDir: "-"}, Prepare: enabled}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := &Pipeline{Stages: []Stage{an}}
		for _, id := range []string{"a@x", "b@x"} {
			s := &series.Series{ID: id, Total: 1, Patches: []*series.Patch{{Number: 1, Msg: msg(id, "[PATCH] a", p1, 1)}}}
			if _, err := p.Run(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
		if !enabled {
			if len(prepared) != 0 {
				t.Errorf("Prepare ran %d times with Prepare off", len(prepared))
			}
			continue
		}
		if len(prepared) != 1 || runsBefore[0] != 0 || runs != 2 {
			t.Fatalf("Prepare ran %d times (rule runs before it: %v), rule ran %d times", len(prepared), runsBefore, runs)
		}
		if prepared[0] != prepared[0].Underlying() {
			t.Error("Prepare got an overlay, not the tree's index")
		}
	}
}

package stable

import (
	"context"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

// BenchmarkStageSynthetic runs the whole stage for one patch over three
// small trees: relevance, worktrees, apply, dependencies, prerequisite
// retries, backport lookups and the upstream check (no builds).
func BenchmarkStageSynthetic(b *testing.B) {
	w := newWorldTB(b)
	for i := range w.opts.Trees {
		w.opts.Trees[i].Build = ""
	}
	s := stabletest.Series(w.repo.PatchMail(w.pA))
	st := NewStage(w.opts, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := st.Run(context.Background(), s, &report.Report{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStageKernel is the per-patch cost on Linux 6.1: one tree where
// the patch applies and one where it fails, with dependencies blamed and a
// two-commit prerequisite chain found.
func BenchmarkStageKernel(b *testing.B) {
	k := newKernelRepo(b)
	s := stabletest.Series(k.r.PatchMail(k.p))
	st := NewStage(k.opts(b), nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := st.Run(context.Background(), s, &report.Report{}); err != nil {
			b.Fatal(err)
		}
	}
}

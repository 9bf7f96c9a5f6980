package sleep

import (
	"context"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
)

// BenchmarkSleepPatch is the per-patch analysis with a warm tree index
// (target <= 2 s), as `check --tree` runs it by default (index.summaries):
// the whole-tree summaries are stored beside the index before the timer
// starts (the rule's Prepare, a no-op once they are there), then seed 002
// patch 2/2 (the case seed002-watch-queue-2of2) is applied in memory onto
// Linux 6.1, overlay, forward and reverse analysis.
func BenchmarkSleepPatch(b *testing.B) {
	patch := casePatch(b, "seed002-watch-queue-2of2")
	dir, ix := kernelIndexFor(b)
	if err := sleepRule(b).Prepare(context.Background(), ix, nil); err != nil {
		b.Fatal(err)
	}
	benchPatch(b, patch, dir, ix)
}

// benchPatch times runSleepPatch over patch b.N times.
func benchPatch(b *testing.B, patch, dir string, ix *index.Index) {
	ix.Callers("x") // the caller map is built once per index, on first use
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fs, _ := runSleepPatch(b, patch, dir, ix)
		if len(fs) < 2 {
			b.Fatalf("findings: %d", len(fs))
		}
	}
}

// BenchmarkSleepPatchOnly is the same patch without a tree.
func BenchmarkSleepPatchOnly(b *testing.B) {
	patch := casePatch(b, "seed002-watch-queue-2of2")
	for i := 0; i < b.N; i++ {
		runSleepPatch(b, patch, "", nil)
	}
}

package sleep

import "testing"

// BenchmarkSleepPatch is the per-patch analysis with a warm tree index
// (target <= 2 s): seed 002 patch 2/2 (the case seed002-watch-queue-2of2)
// applied in memory onto Linux 6.1, overlay, forward and reverse analysis.
func BenchmarkSleepPatch(b *testing.B) {
	patch := casePatch(b, "seed002-watch-queue-2of2")
	dir, ix := kernelIndexFor(b)
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

package wakeup

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules"
)

// BenchmarkWakeupTree measures per-patch wakeup analysis against the whole
// Linux 6.1 tree with a warm index (the index is opened, from its cache when
// warm, before the timer starts), on the patch of the case
// linux61-pipe-release-narrowed: "rule" is the rule's Run alone on a
// prepared pass, "patch" adds parsing, the in-memory apply and the overlay.
func BenchmarkWakeupTree(b *testing.B) {
	dir, idx := kernelIndexFor(b)
	b.Logf("index: %d files, %d funcs (scanned %d, cached %d) in %v", idx.Stats.Files, idx.Stats.Funcs, idx.Stats.Scanned, idx.Stats.Cached, idx.Stats.Duration)
	benchTree(b, dir, idx, "linux61-pipe-release-narrowed")
}

// BenchmarkWakeupTreeRemoved is BenchmarkWakeupTree on a removed wake-up
// (fs/eventfd.c, eventfd_write; the case linux61-eventfd-write-wake-removed):
// the waiters of the queue, the covering wakers in callees and callers and
// the ordering checks are all consulted.
func BenchmarkWakeupTreeRemoved(b *testing.B) {
	dir, idx := kernelIndexFor(b)
	benchTree(b, dir, idx, "linux61-eventfd-write-wake-removed")
}

// benchTree runs the benchmark on the patch of the case name.
func benchTree(b *testing.B, dir string, idx *index.Index, name string) {
	diff := casePatch(b, name)
	rule, err := New(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// Warm the per-tree memo (primitive call sites) once.
	if _, err := treePass(b, diff, idx, dir).Run(rule); err != nil {
		b.Fatal(err)
	}
	b.Run("rule", func(b *testing.B) {
		pass := treePass(b, diff, idx, dir)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			fs, err := pass.Run(rule)
			if err != nil || len(fs) == 0 {
				b.Fatalf("findings %d, err %v", len(fs), err)
			}
		}
	})
	b.Run("patch", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cs, err := diffcheck.Parse(diff)
			if err != nil {
				b.Fatal(err)
			}
			if err := diffcheck.ApplyTree(cs, diffcheck.DirTree(dir)); err != nil {
				b.Fatal(err)
			}
			if _, err := rules.NewPass(cs, idx, rules.Options{}, 1).Run(rule); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package wakeup

import (
	"github.com/autosel-bot/autosel-bot/rules"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// BenchmarkWakeupTree measures per-patch wakeup analysis against the whole
// Linux 6.1 tree with a warm index (the index is opened, from its cache when
// warm, before the timer starts): "rule" is the rule's Run alone on a
// prepared pass, "patch" adds parsing, the in-memory apply and the overlay.
func BenchmarkWakeupTree(b *testing.B) {
	dir, idx := kernelIndexFor(b)
	b.Logf("index: %d files, %d funcs (scanned %d, cached %d) in %v", idx.Stats.Files, idx.Stats.Funcs, idx.Stats.Scanned, idx.Stats.Cached, idx.Stats.Duration)
	diff := readTestdataB(b, "pipe-release-single-6.1.diff")
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

package sleep

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// BenchmarkSleepSweep runs the forward analysis over every function of
// kernel/, mm/, fs/ and net/core/ of Linux 6.1 as if each were new: the
// tree is (almost) free of sleep-in-atomic bugs, so the events per 1000
// functions estimate the rule's false-positive rate on existing code (a
// patch is only blamed for events it adds, so the per-patch rate is far
// lower).
func BenchmarkSleepSweep(b *testing.B) {
	_, ix := kernelIndexFor(b)
	m := sleepModel(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := lockctx.NewResolver(m, ix, nil)
		funcs, evs := 0, 0
		for _, p := range ix.Paths() {
			if !strings.HasSuffix(p, ".c") || !(strings.HasPrefix(p, "kernel/") || strings.HasPrefix(p, "mm/") ||
				strings.HasPrefix(p, "fs/") || strings.HasPrefix(p, "net/core/")) {
				continue
			}
			for _, fn := range ix.File(p).Funcs {
				full := ix.Full(fn)
				if full == nil {
					continue
				}
				funcs++
				evs += len(events(r, full))
			}
		}
		b.ReportMetric(float64(funcs), "funcs")
		b.ReportMetric(float64(evs)*1000/float64(funcs), "events/kfunc")
	}
}

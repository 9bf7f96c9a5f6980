package stable

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

// envBenchKernel enables the kernel-building benchmarks (as in runner;
// scripts/bench-runner.sh --sandbox sets it).
const envBenchKernel = "AUTOSEL_BENCH_KERNEL"

// rebuildBuild is the runner's small build, reduced to the one object the
// series changes: tinyconfig once per build dir, then fs/pipe.o.
const rebuildBuild = `set -e
test -f "$AUTOSEL_BUILD_DIR/.config" || make -s O="$AUTOSEL_BUILD_DIR" LOCALVERSION= tinyconfig
make -s O="$AUTOSEL_BUILD_DIR" LOCALVERSION= -j2 fs/pipe.o`

// BenchmarkStableRebuild runs the stage twice over a two-patch fs/pipe.c
// series on two trees of the shared Linux 6.1 tree (different refs), with a
// fresh cache directory per iteration and a build of fs/pipe.o per tree:
// cold-s is the first run (worktrees and build dirs made), warm-s the
// second one (same series, same cache: target <= 1/4 of cold-s).
func BenchmarkStableRebuild(b *testing.B) {
	if os.Getenv(envBenchKernel) == "" {
		b.Skipf("kernel builds: set %s=1", envBenchKernel)
	}
	src := testkernel.Dir(b)
	dir := b.TempDir()
	testtree.Git(b, "", "clone", "-q", "--shared", "--no-checkout", src, dir)
	r := stabletest.Open(b, dir)
	base := r.Git("rev-parse", "base^{commit}")
	// Two stable trees: base, and base plus an unrelated documentation
	// change (another ref, another commit, the same fs/pipe.c).
	readme := r.Show(base, "README")
	older := r.CommitFiles(base, map[string]string{"README": readme + "\nautosel-bot benchmark tree\n"}, "README: mark the benchmark tree")
	r.Git("update-ref", "refs/heads/linux-6.1.y", base)
	r.Git("update-ref", "refs/heads/linux-6.1.z", older)
	pipe := r.Show(base, "fs/pipe.c")
	edit := func(s, old, new string) string {
		b.Helper()
		if !strings.Contains(s, old) {
			b.Fatalf("fs/pipe.c lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	v1 := edit(pipe, "\t\tpipe->readers--;\n", "\t\tpipe->readers--;\t/* the last reader wakes the writers */\n")
	p1 := r.CommitFiles(base, map[string]string{"fs/pipe.c": v1}, "pipe: document reader accounting\n\nCc: stable@vger.kernel.org\nSigned-off-by: Test Author <author@example.org>\n")
	v2 := edit(v1, "\t\tpipe->writers--;\n", "\t\tpipe->writers--;\t/* and the last writer the readers */\n")
	p2 := r.CommitFiles(p1, map[string]string{"fs/pipe.c": v2}, "pipe: document writer accounting\n\nCc: stable@vger.kernel.org\nSigned-off-by: Test Author <author@example.org>\n")
	r.Git("update-ref", "refs/heads/master", p2)
	ser := stabletest.Series(r.PatchMail(p1), r.PatchMail(p2))

	run := func(opts Options) time.Duration {
		start := time.Now()
		rep := &report.Report{}
		st := NewStage(opts, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
		if err := st.Run(context.Background(), ser, rep); err != nil {
			b.Fatal(err)
		}
		if rep.Stable == nil || len(rep.Stable.Trees) != len(opts.Trees) {
			b.Fatalf("stable summary %+v", rep.Stable)
		}
		for _, tr := range rep.Stable.Trees {
			if !tr.Applied || tr.Build != "ok" {
				b.Fatalf("tree %s: applied %v, build %q %q, error %q", tr.Name, tr.Applied, tr.Build, tr.BuildErrors, tr.Error)
			}
		}
		return time.Since(start)
	}
	var cold, warm time.Duration
	for i := 0; i < b.N; i++ {
		opts := Options{
			Enabled:  true,
			Repo:     dir,
			Upstream: UpstreamOptions{Ref: "master"},
			Trees: []TreeOptions{
				{Name: "v6.1.192", Ref: "linux-6.1.y", Build: rebuildBuild},
				{Name: "v6.1.191", Ref: "linux-6.1.z", Build: rebuildBuild},
			},
			WorkDir:  b.TempDir(),
			CacheDir: b.TempDir(),
		}
		cold += run(opts)
		warm += run(opts)
	}
	b.ReportMetric(cold.Seconds()/float64(b.N), "cold-s/op")
	b.ReportMetric(warm.Seconds()/float64(b.N), "warm-s/op")
	b.ReportMetric(float64(warm)/float64(cold), "warm/cold")
}

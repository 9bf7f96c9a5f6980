package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// EnvBenchKernel enables the kernel-building benchmarks (scripts/bench-runner.sh
// sets it): each iteration rebuilds the runner's tinyconfig kernel.
const EnvBenchKernel = "AUTOSEL_BENCH_KERNEL"

// BenchmarkSandboxRebuild compares the incremental rebuild of the runner's
// tinyconfig kernel after a one-file patch (fs/pipe.c, a constant ccache
// has never seen) in the bwrap sandbox and without it, alternating the two
// on the same worktree, build dir and ccache so that both see the same
// machine load. It reports the median make time of each and the overhead
// (target: <= 10%).
func BenchmarkSandboxRebuild(b *testing.B) {
	if os.Getenv(EnvBenchKernel) == "" {
		b.Skipf("kernel builds: set %s=1 (scripts/bench-runner.sh does)", EnvBenchKernel)
	}
	tree := testkernel.Dir(b)
	work := os.Getenv(EnvWorkDir)
	if work == "" {
		work = DefaultWorkDir
	}
	opts := Options{WorkDir: work, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}.WithDefaults()
	sandboxed := newBuilder(opts)
	if mode, err := sandboxed.sb.Mode(context.Background()); mode != "bwrap" {
		b.Skipf("bwrap unusable: %v", err)
	}
	plain := opts
	plain.Sandbox.Bwrap = "/nonexistent/bwrap" // forces the unsandboxed path
	plain.Sandbox.AllowUnsandboxed = true
	unsandboxed := newBuilder(plain)

	lines := strings.Split(testtree.Git(b, tree, "show", "base:fs/pipe.c"), "\n")
	at := -1
	for i, l := range lines {
		if l == "pipe_release(struct inode *inode, struct file *file)" {
			at = i
		}
	}
	if at < 0 {
		b.Fatal("pipe_release not found")
	}
	patch := func(n int64) []byte {
		// After "{" and the pipe declaration: an asm with a new constant.
		return []byte(fmt.Sprintf("diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -%d,2 +%d,3 @@ pipe_release(struct inode *inode, struct file *file)\n %s\n+\tasm volatile(\"\" :: \"i\" (%d));\n %s\n",
			at+2, at+2, lines[at+1], n, lines[at+2]))
	}
	type timing struct{ make, wall float64 }
	build := func(bl *builder) timing {
		start := time.Now()
		res, err := bl.Build(context.Background(), &Request{Tree: tree, Ref: "base", Label: "bench",
			Patches: []Patch{{Name: "bench.patch", Diff: patch(time.Now().UnixNano() % 1000000007)}}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != BuildOK || res.Cached {
			b.Fatalf("build %s (cached %v): %v", res.Status, res.Cached, res.Errors)
		}
		return timing{res.Duration.Seconds(), time.Since(start).Seconds()}
	}
	// Warm up: the build dir and ccache hold the base kernel afterwards.
	build(sandboxed)
	build(unsandboxed)
	var with, without, withWall, withoutWall []float64
	run := func(bl *builder, make, wall *[]float64) {
		t := build(bl)
		*make, *wall = append(*make, t.make), append(*wall, t.wall)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Alternate which goes first, against drift in the machine's load.
		if i%2 == 0 {
			run(unsandboxed, &without, &withoutWall)
			run(sandboxed, &with, &withWall)
		} else {
			run(sandboxed, &with, &withWall)
			run(unsandboxed, &without, &withoutWall)
		}
	}
	b.StopTimer()
	ms, mu := median(with), median(without)
	b.ReportMetric(ms, "sandboxed-s")
	b.ReportMetric(mu, "unsandboxed-s")
	b.ReportMetric(100*(ms-mu)/mu, "overhead-%")
	// Wall time of the whole Build (guard, worktree, apply, make).
	b.ReportMetric(median(withWall), "sandboxed-wall-s")
	b.ReportMetric(median(withoutWall), "unsandboxed-wall-s")
	b.Logf("make: sandboxed %.2f, unsandboxed %.2f; wall: sandboxed %.2f, unsandboxed %.2f", with, without, withWall, withoutWall)
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

package runner

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/ccachecfg"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// EnvBenchKernel enables the kernel-building benchmarks (scripts/bench-runner.sh
// sets it): each iteration rebuilds the runner's tinyconfig kernel.
const EnvBenchKernel = "AUTOSEL_BENCH_KERNEL"

// BenchmarkSandboxRebuild compares the incremental rebuild of the runner's
// tinyconfig kernel after a one-file patch (fs/pipe.c, a constant ccache
// has never seen) as the runner does it now (in the bwrap sandbox, as the
// build user, in a throwaway copy of the baseline build dir with a
// private ccache layer) with the build before isolation (issue 37): the
// patch applied to the shared worktree and compiled unsandboxed in the
// shared baseline build dir with the shared ccache. The two alternate on
// the same tree so that both see the same machine load. It reports the
// median make time and whole-Build wall time of each and the overhead
// (target: <= 25%). The in-place builds change the baseline build dir, so
// the benchmark rebuilds it from the clean worktree at the end.
func BenchmarkSandboxRebuild(b *testing.B) {
	if os.Getenv(EnvBenchKernel) == "" {
		b.Skipf("kernel builds: set %s=1 (scripts/bench-runner.sh does)", EnvBenchKernel)
	}
	tree := testkernel.Dir(b)
	work := os.Getenv(EnvWorkDir)
	if work == "" {
		work = DefaultWorkDir
	}
	ctx := context.Background()
	opts := Options{WorkDir: work, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}.WithDefaults()
	sandboxed := newBuilder(opts)
	if mode, err := sandboxed.sb.Mode(ctx); mode != "bwrap" {
		b.Skipf("bwrap unusable: %v", err)
	}
	plain := opts
	plain.Sandbox.Bwrap = "/nonexistent/bwrap" // forces the unsandboxed path
	plain.Sandbox.AllowUnsandboxed = true
	unsandboxed := newBuilder(plain)
	commit, err := resolveCommit(ctx, tree, "base")
	if err != nil {
		b.Fatal(err)
	}
	p, err := unsandboxed.pathsFor(tree)
	if err != nil {
		b.Fatal(err)
	}

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
	patch := func() string {
		// After "{" and the pipe declaration: an asm with a new constant.
		return fmt.Sprintf("diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -%d,2 +%d,3 @@ pipe_release(struct inode *inode, struct file *file)\n %s\n+\tasm volatile(\"\" :: \"i\" (%d));\n %s\n",
			at+2, at+2, lines[at+1], time.Now().UnixNano()%1000000007, lines[at+2])
	}
	type timing struct{ make, wall float64 }
	isolated := func() timing {
		start := time.Now()
		res, err := sandboxed.Build(ctx, &Request{Tree: tree, Ref: "base", Label: "bench",
			Patches: []Patch{{Name: "bench.patch", Diff: []byte(patch())}}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != BuildOK || res.Cached {
			b.Fatalf("build %s (cached %v): %v", res.Status, res.Cached, res.Errors)
		}
		return timing{res.Duration.Seconds(), time.Since(start).Seconds()}
	}
	// inPlace builds the clean worktree, or the worktree with a new patch
	// applied, in the shared build dir without the sandbox.
	inPlace := func(patched bool) timing {
		start := time.Now()
		if err := prepareWorktree(ctx, tree, p.worktree, commit); err != nil {
			b.Fatal(err)
		}
		if patched {
			testtree.GitInput(b, p.worktree, patch(), "apply", "-")
		}
		q := p
		cache, err := ccachecfg.For(opts.ccacheDir(), opts.CCacheMaxSize, false)
		if err != nil {
			b.Fatal(err)
		}
		defer cache.Cleanup()
		q.cache = cache
		t := time.Now()
		if err := unsandboxed.make(ctx, q, io.Discard, nil, "", "bzImage"); err != nil {
			b.Fatal(err)
		}
		return timing{time.Since(t).Seconds(), time.Since(start).Seconds()}
	}
	// Warm up: the baseline build dir and ccache hold the base kernel.
	isolated()
	inPlace(false)
	defer inPlace(false) // leave the baseline build dir as the clean tree built it
	var with, without, withWall, withoutWall []float64
	run := func(f func() timing, make, wall *[]float64) {
		t := f()
		*make, *wall = append(*make, t.make), append(*wall, t.wall)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Alternate which goes first, against drift in the machine's load.
		if i%2 == 0 {
			run(func() timing { return inPlace(true) }, &without, &withoutWall)
			run(isolated, &with, &withWall)
		} else {
			run(isolated, &with, &withWall)
			run(func() timing { return inPlace(true) }, &without, &withoutWall)
		}
	}
	b.StopTimer()
	ms, mu := median(with), median(without)
	b.ReportMetric(ms, "isolated-s")
	b.ReportMetric(mu, "inplace-s")
	b.ReportMetric(100*(ms-mu)/mu, "overhead-%")
	// Wall time of the whole build (worktree, copy, apply, make).
	b.ReportMetric(median(withWall), "isolated-wall-s")
	b.ReportMetric(median(withoutWall), "inplace-wall-s")
	b.Logf("make: isolated %.2f, in place %.2f; wall: isolated %.2f, in place %.2f", with, without, withWall, withoutWall)
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

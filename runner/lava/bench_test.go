package lava

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/runner"
)

// commentPatch adds a comment line after fs/pipe.c's first line: a kernel
// that differs from the baseline only in its image (one-file rebuild).
func commentPatch(tb testing.TB, tree string, k int) runner.Patch {
	tb.Helper()
	lines := strings.SplitN(testtree.Git(tb, tree, "show", "base:fs/pipe.c"), "\n", 5)
	if len(lines) < 5 {
		tb.Fatal("fs/pipe.c too short")
	}
	// One line of context before, three after (git apply wants the hunk
	// anchored at the start of the file).
	diff := fmt.Sprintf("diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1,4 +1,5 @@\n %s\n+/* autosel-bot benchmark kernel %d */\n %s\n %s\n %s\n",
		lines[0], k, lines[1], lines[2], lines[3])
	return runner.Patch{Name: fmt.Sprintf("bench-comment-%d.patch", k), Diff: []byte(diff)}
}

// runAll runs the four requests on be at once and returns the wall time
// and each request's time.
func runAll(ctx context.Context, tb testing.TB, be runner.Backend, reqs []*runner.Request) (time.Duration, []time.Duration, []*runner.KernelResult) {
	tb.Helper()
	var wg sync.WaitGroup
	lat := make([]time.Duration, len(reqs))
	res := make([]*runner.KernelResult, len(reqs))
	errs := make([]error, len(reqs))
	start := time.Now()
	for i, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			res[i], errs[i] = be.Run(ctx, req)
			lat[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	for i, err := range errs {
		if err != nil {
			tb.Fatalf("%s: %v", reqs[i].Label, err)
		}
		if res[i].Boot != "ok" {
			tb.Fatalf("%s: boot %q: %s", reqs[i].Label, res[i].Boot, res[i].BootDetail)
		}
	}
	return wall, lat, res
}

func mean(d []time.Duration) time.Duration {
	var s time.Duration
	for _, x := range d {
		s += x
	}
	return s / time.Duration(len(d))
}

// BenchmarkLavaFourPatched boots four patched kernels at once on the lab's
// two devices, and the same four on the local backend with two VMs at
// once; it reports both wall times and the per-job overhead of LAVA
// (builds are done before the timer). Run it once:
//
//	go test -run '^$' -bench LavaFourPatched -benchtime 1x ./runner/lava/
func BenchmarkLavaFourPatched(b *testing.B) {
	l, tree, o := needLab(b)
	o.Concurrency = 2
	be := newBackend(b, l, o, func(opts *Options) {
		opts.MaxInFlight = 4
		opts.Events = "tcp://127.0.0.1:5500"
	})
	ctx := ctxFor(b, 60*time.Minute)
	patches := [][]runner.Patch{
		readPatch(b, "pipe-release-single-wakeup.patch"),
		readPatch(b, "pipe-resize-mutex-in-spinlock.patch"),
		{commentPatch(b, tree, 1)},
		{commentPatch(b, tree, 2)},
	}
	var reqs []*runner.Request
	loc := runner.NewLocal(o)
	for i, p := range patches {
		req := &runner.Request{Tree: tree, Ref: "base", Patches: p, Label: fmt.Sprintf("patched-%d", i+1)}
		if br, err := loc.Build(ctx, req); err != nil || br.Status != runner.BuildOK {
			b.Fatalf("build %d: %v %+v", i+1, err, br)
		}
		reqs = append(reqs, req)
	}
	for b.Loop() {
		lavaWall, lavaLat, _ := runAll(ctx, b, be, reqs)
		localWall, localLat, localRes := runAll(ctx, b, loc, reqs)
		var vm []time.Duration
		for _, r := range localRes {
			vm = append(vm, r.VMTime)
		}
		// Each device boots two of the four kernels one after the other:
		// the wall-time difference over two is LAVA's overhead per job.
		overhead := (lavaWall - localWall) / 2
		b.ReportMetric(lavaWall.Seconds(), "lava-wall-s")
		b.ReportMetric(localWall.Seconds(), "local-wall-s")
		b.ReportMetric(mean(lavaLat).Seconds(), "lava-mean-latency-s")
		b.ReportMetric(mean(localLat).Seconds(), "local-mean-latency-s")
		b.ReportMetric(mean(vm).Seconds(), "local-mean-vm-s")
		b.ReportMetric(overhead.Seconds(), "lava-overhead-per-job-s")
		b.Logf("lava: wall %s, latencies %v; local (2 VMs at once): wall %s, latencies %v, VM %v",
			lavaWall.Round(100*time.Millisecond), lavaLat, localWall.Round(100*time.Millisecond), localLat, vm)
	}
}

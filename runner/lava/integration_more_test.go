package lava

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/runner"
)

// TestLavaBaselineShared: concurrent requests for the same baseline (tree,
// commit, config, tests) share one LAVA job, on a new backend each
// attempt (onceMoreOnInfra: the first one's retries may have kept the
// baseline).
func TestLavaBaselineShared(t *testing.T) {
	l, tree, o := needLab(t)
	onceMoreOnInfra(t, func() error {
		return shareBaseline(ctxFor(t, buildWait), newBackend(t, l, o, nil), tree)
	})
}

// onceMoreOnInfra runs attempt, and once more when it fails with
// ErrInfra: a job the lab fails (under load a TCG guest may print nothing
// before its timeout) says nothing of what a test checks, which the
// Runner's retries cover in production. Any other error, or a second
// failure, fails the test.
func onceMoreOnInfra(t *testing.T, attempt func() error) {
	t.Helper()
	for n := 1; ; n++ {
		err := attempt()
		if err == nil {
			return
		}
		if !errors.Is(err, ErrInfra) || n == 2 {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %v; again", n, err)
	}
}

// shareBaseline makes three concurrent requests of one baseline on a new
// backend and checks that they share one job.
func shareBaseline(ctx context.Context, be *Backend, tree string) error {
	var wg sync.WaitGroup
	res := make([]*runner.KernelResult, 3)
	errs := make([]error, 3)
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = be.Run(ctx, &runner.Request{Tree: tree, Ref: "base", Label: "baseline"})
		}()
	}
	wg.Wait()
	for i := range res {
		if errs[i] != nil {
			return errs[i]
		}
		if res[i].Boot != "ok" || len(res[i].Tests) == 0 {
			return fmt.Errorf("request %d: boot %q, %d tests", i, res[i].Boot, len(res[i].Tests))
		}
	}
	if h := be.m.baselineHits.Load(); h != 2 {
		return fmt.Errorf("baseline cache hits %d, want 2", h)
	}
	// The backend's own count: the lab may run other clients' jobs.
	if n := be.m.submitted.Load(); n != 1 {
		return fmt.Errorf("%d LAVA jobs submitted for three requests of one baseline, want 1", n)
	}
	return nil
}

// TestLavaCancelOnShutdown: a run whose context ends while its job runs
// cancels the job in LAVA.
func TestLavaCancelOnShutdown(t *testing.T) {
	l, tree, o := needLab(t)
	be := newBackend(t, l, o, nil)
	ctx, cancel := context.WithCancel(ctxFor(t, buildWait))
	// Jobs already running on the lab are not this run's: a lab shared
	// with an earlier, interrupted run may still have one.
	before := map[int64]bool{}
	if jobs, err := be.Client().Jobs(context.Background(), "Running"); err == nil {
		for _, j := range jobs {
			before[j.ID] = true
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := be.Run(ctx, &runner.Request{Tree: tree, Ref: "base", Patches: readPatch(t, "pipe-release-single-wakeup.patch"), Label: "patched"})
		done <- err
	}()
	var id int64
	for id == 0 {
		jobs, err := be.Client().Jobs(context.Background(), "Running")
		for _, j := range jobs {
			if err == nil && !before[j.ID] {
				id = j.ID
				break
			}
		}
		if id != 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended before its job ran: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v, want context.Canceled", err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		j, err := be.Client().Job(context.Background(), id)
		if err == nil && j.State == "Finished" {
			if j.Health != "Canceled" {
				t.Fatalf("job %d: %s, want Canceled", id, j.Health)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d still %+v two minutes after the cancellation", id, j)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// deadArtifacts publishes URLs that answer 404.
type deadArtifacts struct{ base string }

func (d deadArtifacts) Publish(_ context.Context, files map[string]string) (map[string]string, func(), error) {
	urls := map[string]string{}
	for name := range files {
		urls[name] = d.base + "withdrawn/" + name
	}
	return urls, func() {}, nil
}

// TestLavaIncompleteIsInfra: a job that LAVA ends Incomplete before the
// guest ran (its artifacts cannot be downloaded) is an infrastructure
// failure, not a result.
func TestLavaIncompleteIsInfra(t *testing.T) {
	l, tree, o := needLab(t)
	be := newBackend(t, l, o, nil)
	be.art = deadArtifacts{base: "http://" + be.srv.Addr() + "/"}
	kr, err := be.Run(ctxFor(t, buildWait), &runner.Request{Tree: tree, Ref: "base", Label: "baseline"})
	if !errors.Is(err, ErrInfra) {
		t.Fatalf("result %+v, err %v: want ErrInfra", kr, err)
	}
	if !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("error %q does not say the job was incomplete", err)
	}
	t.Log(err)
}

// panicBuilder boots the kernel with an init that does not exist: the
// kernel panics before the suite starts.
type panicBuilder struct{ *runner.Local }

func (p panicBuilder) PrepareBoot(ctx context.Context, kernel, accel string, tests []runner.Test, dir string) (*runner.BootSpec, []runner.Test, error) {
	spec, tests, err := p.Local.PrepareBoot(ctx, kernel, accel, tests, dir)
	if err == nil {
		spec.Cmdline += " rdinit=/no-such-init init=/no-such-init"
	}
	return spec, tests, err
}

// TestLavaBootFailure: a kernel that panics before init (QEMU exits, LAVA
// ends the job Incomplete with "Connection closed") is a boot failure of
// the kernel, a result, not an infrastructure failure.
func TestLavaBootFailure(t *testing.T) {
	l, tree, o := needLab(t)
	be := newBackend(t, l, o, nil)
	be.b = panicBuilder{runner.NewLocal(o)}
	kr, err := be.Run(ctxFor(t, buildWait), &runner.Request{Tree: tree, Ref: "base", Label: "patched",
		Patches: readPatch(t, "pipe-release-single-wakeup.patch")})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("boot %s: %s", kr.Boot, kr.BootDetail)
	if kr.Boot != string(runner.BootFailure) || !strings.Contains(kr.BootDetail, "Kernel panic") {
		t.Fatalf("boot %q detail %q, want a boot failure with the panic", kr.Boot, kr.BootDetail)
	}
	for _, tr := range kr.Tests {
		if tr.Verdict != runner.BootFailure {
			t.Errorf("%s: %s", tr.Name, tr.Verdict)
		}
	}
}

// TestLavaEvents: with the event stream (lava-publisher on loopback) the
// follower sees a finished job at once instead of at its next backoff
// poll.
func TestLavaEvents(t *testing.T) {
	l, tree, o := needLab(t)
	var (
		be          *Backend
		ctx         context.Context
		start, seen time.Time
		kr          *runner.KernelResult
	)
	onceMoreOnInfra(t, func() error {
		be = newBackend(t, l, o, func(opts *Options) {
			opts.Events = "tcp://127.0.0.1:5500"
			opts.PollMin, opts.PollMax = 30*time.Second, time.Minute
		})
		ctx = ctxFor(t, buildWait)
		start = time.Now()
		var err error
		kr, err = be.Run(ctx, &runner.Request{Tree: tree, Ref: "base", Label: "baseline"})
		seen = time.Now()
		return err
	})
	if kr.Boot != "ok" {
		t.Fatalf("boot %q: %s", kr.Boot, kr.BootDetail)
	}
	if be.ev.received.Load() == 0 {
		t.Fatal("no event received from the publisher")
	}
	jobs, err := be.Client().Jobs(ctx, "Finished")
	if err != nil || len(jobs) == 0 || jobs[0].EndTime == nil {
		t.Fatalf("jobs: %v %v", err, jobs)
	}
	lag := seen.Sub(*jobs[0].EndTime)
	t.Logf("run %s, %d events, result seen %s after LAVA ended job %d", seen.Sub(start).Round(time.Millisecond),
		be.ev.received.Load(), lag.Round(time.Millisecond), jobs[0].ID)
	// Without events the first poll would come 30 s after the submission,
	// long after the job (10-20 s) ended.
	if lag > 4*time.Second {
		t.Errorf("result seen %s after the job ended: the events did not wake the follower", lag)
	}
}

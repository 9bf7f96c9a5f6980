package runner

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/report"
)

// The integration tests share one Runner, one build dir and one ccache
// (a package-level harness), and run sequentially: the first one pays for
// the cold kernel build (~10 min on 2 cores), the rest rebuild one file in
// seconds. The baseline result is computed once and reused.

// EnvWorkDir overrides the runner work dir for the integration tests.
const EnvWorkDir = "AUTOSEL_RUNNER_WORKDIR"

var harness struct {
	once sync.Once
	r    *Runner
	tree string
	skip string
}

// needIntegration returns the shared runner and the Linux 6.1 tree. It
// skips (fails under CI=true) when a part is missing.
func needIntegration(t *testing.T) (*Runner, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: -short")
	}
	tree := testkernel.Dir(t)
	harness.once.Do(func() {
		for _, tool := range []string{"qemu-system-x86_64", "make", "gcc", "flex", "bison", "bc", "ccache", "git"} {
			if _, err := exec.LookPath(tool); err != nil {
				harness.skip = tool + " not installed (.ci/packages.txt)"
				return
			}
		}
		work := os.Getenv(EnvWorkDir)
		if work == "" {
			work = DefaultWorkDir
		}
		// The documented defaults (config.yaml), as the CLI would use them.
		var opts Options
		for key, out := range map[string]any{"runner": &opts, "sandbox": &opts.Sandbox} {
			if err := configtest.Section(key, out); err != nil {
				harness.skip = "config: " + err.Error()
				return
			}
		}
		opts.WorkDir = work // builds run in bwrap (sandbox:), as the CLI's
		opts.Log = slog.New(slog.NewTextHandler(testLogWriter{}, &slog.HandlerOptions{Level: slog.LevelInfo}))
		harness.r = New(opts, nil)
		harness.tree = tree
	})
	if harness.skip != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("integration test needs: %s", harness.skip)
		}
		t.Skip(harness.skip)
	}
	current.Store(t)
	t.Cleanup(func() { current.CompareAndSwap(t, nil) })
	return harness.r, harness.tree
}

func readPatchFile(t *testing.T, name string) []Patch {
	t.Helper()
	b, err := os.ReadFile("testdata/patches/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return []Patch{{Name: name, Diff: b}}
}

func logVM(t *testing.T, vm *report.VMReport) {
	t.Helper()
	t.Logf("VM report (%s):\n%s", vm.Status, vm.Text())
}

// testContext bounds one integration test that builds a kernel a side:
// 30 minutes, a cold build of each on two cores.
func testContext(t *testing.T) context.Context {
	return testContextFor(t, 30*time.Minute)
}

// testContextFor bounds an integration test by d.
func testContextFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestIntegrationBaseline: Linux 6.1 as shipped passes the whole suite
// with no kernel splat.
func TestIntegrationBaseline(t *testing.T) {
	r, tree := needIntegration(t)
	start := time.Now()
	kr, err := r.Baseline(testContext(t), tree, "base")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("baseline: build %s (cached %v, %s), boot %s, accel %s, VM %s, total %s",
		kr.Build.Status, kr.Build.Cached, kr.Build.Duration.Round(time.Second), kr.Boot, kr.Accel,
		kr.VMTime.Round(100*time.Millisecond), time.Since(start).Round(time.Second))
	if kr.Build.Status != BuildOK {
		t.Fatalf("baseline build %s: %s", kr.Build.Status, strings.Join(kr.Build.Errors, "\n"))
	}
	if len(kr.Build.ConfigMissing) > 0 {
		t.Errorf("config options lost: %v", kr.Build.ConfigMissing)
	}
	if kr.Boot != "ok" {
		t.Fatalf("baseline boot: %s", kr.BootDetail)
	}
	if len(kr.Tests) != len(Suite) {
		t.Errorf("%d results for %d suite tests", len(kr.Tests), len(Suite))
	}
	for _, tr := range kr.Tests {
		t.Logf("  %-24s %s %s metrics=%v", tr.Name, tr.Verdict, tr.Reason, tr.Metrics)
		if tr.Verdict != Pass {
			t.Errorf("%s: %s (%s)", tr.Name, tr.Verdict, tr.Reason)
		}
		for _, s := range tr.Splats {
			t.Errorf("%s: splat on the baseline:\n%s", tr.Name, s.Text)
		}
		if tr.Name != "boot" && len(tr.Runs) == 0 {
			t.Errorf("%s: no runs", tr.Name)
		}
	}
	for _, name := range []string{"pipe_token_ring", "epoll_wakeup", "pipe_splice_throughput"} {
		if tr := kr.Test(name); tr == nil || len(tr.Metrics) == 0 || len(tr.Metrics[0].Values) < 3 {
			t.Errorf("%s: want metrics over >= 3 runs, got %+v", name, tr)
		}
	}
}

// TestIntegrationPipeReleaseSingleWakeup: pipe_release waking rd_wait with
// a single (exclusive) wakeup leaves the second reader asleep: the CRIU
// two-reader test hangs on the patched kernel and passes on the baseline.
func TestIntegrationPipeReleaseSingleWakeup(t *testing.T) {
	r, tree := needIntegration(t)
	vm, err := r.Compare(testContext(t), tree, "base", readPatchFile(t, "pipe-release-single-wakeup.patch"))
	if err != nil {
		t.Fatal(err)
	}
	logVM(t, vm)
	if vm.Status != report.VMRegression {
		t.Fatalf("status %s, want regression", vm.Status)
	}
	found := false
	for _, tt := range vm.Tests {
		if tt.Name == "pipe_two_readers" {
			found = true
			if tt.Baseline != "pass" || tt.Patched != "hang" || !tt.Regression {
				t.Errorf("pipe_two_readers: baseline %s patched %s regression %v (%s)", tt.Baseline, tt.Patched, tt.Regression, tt.Reason)
			}
			if !strings.Contains(tt.Reason, "still blocked") {
				t.Errorf("reason %q does not say the readers stayed blocked", tt.Reason)
			}
		}
	}
	if !found {
		t.Fatal("pipe_two_readers missing from the report")
	}
	if vm.BuildSeconds > 120 {
		t.Logf("note: rebuild took %.0f s (cold cache?)", vm.BuildSeconds)
	}
}

// TestIntegrationSleepInAtomic: a mutex taken inside pipe_resize_ring's
// spin_lock_irq region (reached by fcntl(F_SETPIPE_SZ)) is a crash verdict
// carrying DEBUG_ATOMIC_SLEEP's splat.
func TestIntegrationSleepInAtomic(t *testing.T) {
	r, tree := needIntegration(t)
	vm, err := r.Compare(testContext(t), tree, "base", readPatchFile(t, "pipe-resize-mutex-in-spinlock.patch"))
	if err != nil {
		t.Fatal(err)
	}
	logVM(t, vm)
	if vm.Status != report.VMRegression {
		t.Fatalf("status %s, want regression", vm.Status)
	}
	crashed := false
	for _, tt := range vm.Tests {
		if tt.Patched == "crash" && strings.Contains(tt.Splat, "BUG: sleeping function called from invalid context") {
			crashed = true
			if !tt.Regression || tt.Baseline != "pass" {
				t.Errorf("%s: baseline %s regression %v", tt.Name, tt.Baseline, tt.Regression)
			}
			if !strings.Contains(tt.Splat, "pipe_resize_ring") {
				t.Errorf("splat has no pipe_resize_ring frame:\n%s", tt.Splat)
			}
		}
	}
	if !crashed {
		t.Fatal("no test got the crash verdict with the sleeping-function splat")
	}
	if !strings.Contains(vm.Text(), "BUG: sleeping function called from invalid context") {
		t.Error("text report lacks the splat")
	}
}

// TestIntegrationBuildFailure: a patch that does not compile reports
// "Build failed!" with the compiler's error, and runs no VM.
func TestIntegrationBuildFailure(t *testing.T) {
	r, tree := needIntegration(t)
	vm, err := r.Compare(testContext(t), tree, "base", readPatchFile(t, "pipe-build-error.patch"))
	if err != nil {
		t.Fatal(err)
	}
	logVM(t, vm)
	if vm.Status != report.VMBuildFailed || vm.Build != "failed" {
		t.Fatalf("status %s build %s, want build-failed", vm.Status, vm.Build)
	}
	joined := strings.Join(vm.BuildErrors, "\n")
	if !strings.Contains(joined, "fs/pipe.c:") || !strings.Contains(joined, "error:") || !strings.Contains(joined, "release_count") {
		t.Errorf("build errors lack the compiler error:\n%s", joined)
	}
	if len(vm.Tests) != 0 || vm.PatchedVMSeconds != 0 {
		t.Errorf("a VM ran for a failed build: %+v", vm.Tests)
	}
	if !strings.HasPrefix(strings.Split(vm.Text(), "\n")[2], "Build failed!") {
		t.Errorf("text:\n%s", vm.Text())
	}
}

// TestIntegrationRefusedPatch: a patch touching a Makefile is refused
// before anything is built or applied.
func TestIntegrationRefusedPatch(t *testing.T) {
	r, tree := needIntegration(t)
	patch := "diff --git a/fs/Makefile b/fs/Makefile\n--- a/fs/Makefile\n+++ b/fs/Makefile\n@@ -1 +1,2 @@\n # SPDX-License-Identifier: GPL-2.0\n+$(shell touch /tmp/pwned)\n"
	start := time.Now()
	vm, err := r.Compare(testContext(t), tree, "base", []Patch{{Name: "makefile.patch", Diff: []byte(patch)}})
	if err != nil {
		t.Fatal(err)
	}
	logVM(t, vm)
	if vm.Status != report.VMRefused || len(vm.Refusals) == 0 || !strings.Contains(vm.Refusals[0], "fs/Makefile") {
		t.Fatalf("status %s refusals %v", vm.Status, vm.Refusals)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("refusal took %s: something was built", d)
	}
}

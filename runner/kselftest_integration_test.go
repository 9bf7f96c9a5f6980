package runner

import (
	"debug/elf"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/runner/kselftest"
)

// TestIntegrationKselftestFutex: a patch to kernel/futex runs the futex
// selftests, built from the tree under test, on both kernels, with a
// result per TAP test point; a deliberately broken futex_wait (EINVAL
// instead of EWOULDBLOCK for a changed futex value) fails
// futex_wait_wouldblock on the patched kernel only. It reuses the
// integration tests' build dir: the table's config options are part of
// the one kernel config, so no second full build (the patched kernels are
// one-file rebuilds; the selftests build in about a minute).
func TestIntegrationKselftestFutex(t *testing.T) {
	r, tree := needIntegration(t)
	if _, err := os.Stat(r.opts.Busybox); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("busybox-static not installed (.ci/packages.txt): %v", err)
		}
		t.Skipf("busybox-static not installed: %v", err)
	}
	ctx := testContext(t)
	start := time.Now()
	vm, err := r.Compare(ctx, tree, "base", readPatchFile(t, "futex-comment.patch"))
	if err != nil {
		t.Fatal(err)
	}
	logVM(t, vm)
	t.Logf("futex comment patch: %s (build %.0f s, VMs %.0f s + %.0f s)", time.Since(start).Round(time.Second),
		vm.BuildSeconds, vm.BaselineVMSeconds, vm.PatchedVMSeconds)
	if vm.Status != report.VMOK {
		t.Fatalf("status %s: %s", vm.Status, vm.Summary)
	}
	if len(vm.Kselftests) == 0 || !strings.HasPrefix(vm.Kselftests[0], "futex: kernel/futex/waitwake.c") {
		t.Errorf("kselftest plan %q", vm.Kselftests)
	}
	points, passed := 0, 0
	for _, tt := range vm.Tests {
		if tt.Suite != "kselftest" {
			continue
		}
		if strings.Contains(tt.Name, ": ") {
			points++
			if tt.Baseline == "pass" && tt.Patched == "pass" {
				passed++
			}
		}
	}
	if points < 10 || passed < points/2 {
		t.Errorf("%d futex test points, %d passing on both kernels", points, passed)
	}

	start = time.Now()
	vm, err = r.Compare(ctx, tree, "base", readPatchFile(t, "futex-wouldblock-broken.patch"))
	if err != nil {
		t.Fatal(err)
	}
	logVM(t, vm)
	t.Logf("broken futex patch: %s", time.Since(start).Round(time.Second))
	if vm.Status != report.VMRegression {
		t.Fatalf("status %s, want regression: %s", vm.Status, vm.Summary)
	}
	found := false
	for _, tt := range vm.Tests {
		if tt.Suite == "kselftest" && tt.Regression && strings.Contains(tt.Reason, "futex_wait") && tt.Patched == "fail" {
			found = true
		}
	}
	if !found {
		t.Error("no futex_wait selftest regression on the broken kernel")
	}
}

// TestKselftestGuestBoot boots a kernel that is already built with
// selftests installed by buildKselftests (or by hand: make -C
// tools/testing/selftests O=... INSTALL_PATH=... install with
// CFLAGS=LDFLAGS=-static, then autosel-kselftest-list.txt next to
// kselftest-list.txt) and runs targets (default futex) through the
// guest's init and busybox, without building a kernel. Set
// AUTOSEL_KSELFTEST_BOOT=<bzImage>:<install dir>[:<target>,...] to run it.
func TestKselftestGuestBoot(t *testing.T) {
	parts := strings.Split(os.Getenv("AUTOSEL_KSELFTEST_BOOT"), ":")
	if len(parts) < 2 {
		t.Skip("AUTOSEL_KSELFTEST_BOOT=<bzImage>:<install dir>[:<target>,...] not set")
	}
	kernel, inst, names := parts[0], parts[1], []string{"futex"}
	if len(parts) > 2 {
		names = strings.Split(parts[2], ",")
	}
	var targets []kselftest.Target
	for _, n := range names {
		targets = append(targets, kselftest.Target{Name: n, Seconds: 60})
	}
	opts := Options{WorkDir: t.TempDir(), Accel: "tcg"}.WithDefaults()
	l := NewLocal(opts)
	ctx := testContext(t)
	ks, files, notes, err := kselftestGuest(ctx, inst, targets, opts.Busybox)
	if err != nil || len(ks) == 0 || len(notes) > 0 {
		t.Fatalf("tests %v notes %v err %v", ks, notes, err)
	}
	kr := &KernelResult{Label: "kselftest", Build: BuildResult{Status: BuildOK, Kernel: kernel}}
	start := time.Now()
	if err := l.runSuite(ctx, kr, ks, files); err != nil {
		t.Fatal(err)
	}
	t.Logf("boot + selftests %v: %s (VM %s), console %s", names, time.Since(start).Round(time.Second), kr.VMTime.Round(time.Second), kr.Console)
	if kr.Boot != "ok" {
		t.Fatalf("boot: %s", kr.BootDetail)
	}
	points := 0
	for _, tr := range kr.Tests {
		t.Logf("  %-40s %-6s %s", tr.Name, tr.Verdict, tr.Reason)
		if strings.Contains(tr.Name, ": ") {
			points++
		}
		if !strings.Contains(tr.Name, ": ") && (tr.Verdict == Hang || tr.Verdict == Crash || tr.Verdict == NotRun) {
			t.Errorf("%s: %s %s", tr.Name, tr.Verdict, tr.Reason)
		}
	}
	if contains(names, "futex") && points < 10 {
		t.Errorf("%d TAP points from the futex selftests", points)
	}
}

// TestKselftestBuildSandboxed builds the futex selftests the way a kernel
// build does (in the build sandbox, O= a build dir) from the kernel tree
// in AUTOSEL_KSELFTEST_TREE into AUTOSEL_KSELFTEST_BUILD, and checks that
// the programs are static (the guest has no libc) and listed. Both must
// be set to run it; the tree is only read.
func TestKselftestBuildSandboxed(t *testing.T) {
	tree, build := os.Getenv("AUTOSEL_KSELFTEST_TREE"), os.Getenv("AUTOSEL_KSELFTEST_BUILD")
	if tree == "" || build == "" {
		t.Skip("AUTOSEL_KSELFTEST_TREE and AUTOSEL_KSELFTEST_BUILD not set")
	}
	opts := Options{WorkDir: t.TempDir(), CCacheDir: "off"}.WithDefaults()
	opts.Log = slog.New(slog.NewTextHandler(testLogWriter{}, nil))
	b := newBuilder(opts)
	var log strings.Builder
	start := time.Now()
	failed, err := b.buildKselftests(testContext(t), paths{worktree: tree, build: build}, []kselftest.Target{{Name: "futex", Seconds: 1}}, &log)
	if err != nil || len(failed) > 0 {
		t.Fatalf("failed %q err %v\n%s", failed, err, tailLines(log.String(), 40))
	}
	t.Logf("sandboxed selftest build: %s", time.Since(start).Round(time.Second))
	list, err := os.ReadFile(filepath.Join(build, kselftestInstall, kselftestList))
	if err != nil || !strings.Contains(string(list), "futex:run.sh") {
		t.Fatalf("list %q err %v", list, err)
	}
	f, err := elf.Open(filepath.Join(build, kselftestInstall, "futex/functional/futex_wait"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("futex_wait is dynamically linked")
		}
	}
}

package actions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/ghfake"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/runner"
)

// TestResultMapping runs the backend end to end against the fake GitHub:
// the bundle goes up as a release asset, the dispatched run is found by
// its run-name, the workflow is played by the real entry point (RunBundle)
// with a fake QEMU, and the results frames that come back are turned into
// the local backend's verdicts.
func TestResultMapping(t *testing.T) {
	okResults := "@@AUTOSEL-HELLO 1\n" + frame("a", 0, "o {\"result\":\"pass\"}\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=3") + "@@AUTOSEL-DONE\n"
	crashConsole := "[    1.0] autosel: begin a 0\n[    1.1] BUG: kernel NULL pointer dereference, address: 0000000000000000\n" +
		"[    1.2] Oops: 0002 [#1] PREEMPT SMP\n[    1.3] Kernel panic - not syncing: Fatal exception\n"
	for _, tt := range []struct {
		name    string
		qemu    string
		boot    string
		verdict runner.Verdict
		reason  string
		infra   bool
	}{
		{"pass", "printf '[    0.2] autosel: begin a 0\\n' > $CON; printf '" + strings.ReplaceAll(okResults, "\n", "\\n") + "' > $RES",
			"ok", runner.Pass, "", false},
		{"hang", "printf '[    1.0] autosel: begin a 0\\n' > $CON; printf '@@AUTOSEL-HELLO 1\\n@@AUTOSEL-BEGIN a 0\\n' > $RES; sleep 20",
			"ok", runner.Hang, "", false},
		{"crash", "printf '" + strings.ReplaceAll(crashConsole, "\n", "\\n") + "' > $CON; printf '@@AUTOSEL-HELLO 1\\n@@AUTOSEL-BEGIN a 0\\n' > $RES",
			"ok", runner.Crash, "NULL pointer", false},
		{"boot failure", "printf '[    0.5] Kernel panic - not syncing: VFS: Unable to mount root fs\\n' > $CON",
			"boot-failure", runner.BootFailure, "", false},
		{"qemu cannot start", "echo 'qemu: could not load kernel' >&2; exit 1", "", "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := ghfake.New(t)
			qemu := fakeQEMU(t, tt.qemu)
			srv.SetWorkflow(playEntryPoint(t, qemu), 2, 3)
			fb := &fakeBuilder{local: runner.NewLocal(runner.Options{Runs: 1})}
			be := newBackend(t, srv, fb, 2)
			kr, err := be.Run(context.Background(), &runner.Request{Tree: "t", Ref: "abc", Label: "patched"})
			if tt.infra {
				if err == nil || !strings.Contains(err.Error(), "could not load kernel") {
					t.Fatalf("err %v, want the infrastructure failure with QEMU's message", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if kr.Boot != tt.boot || len(kr.Tests) != 1 || kr.Tests[0].Verdict != tt.verdict || !strings.Contains(kr.Tests[0].Reason, tt.reason) {
					t.Fatalf("boot %q tests %+v; want %s %s", kr.Boot, kr.Tests, tt.boot, tt.verdict)
				}
				if kr.Accel != "tcg" || kr.Console == "" {
					t.Errorf("accel %q console %q", kr.Accel, kr.Console)
				}
			}
			runs := srv.Runs()
			if len(runs) != 1 || runs[0].Ref != "main" || runs[0].Workflow != "autosel-vm.yml" || !strings.HasPrefix(runs[0].Inputs["run_key"], "patched-") {
				t.Fatalf("runs %+v", runs)
			}
			if a, f := srv.Leftovers(); a != 0 || (f != 0 && !tt.infra) {
				t.Errorf("left %d assets, %d artifacts", a, f)
			}
			// The hosted runner booted with the local backend's command line.
			args, err := os.ReadFile(filepath.Join(filepath.Dir(qemu), "args"))
			if err != nil {
				t.Fatal(err)
			}
			got := lines(string(args))
			k := slices.Index(got, "-kernel")
			if k < 0 {
				t.Fatalf("args %q", got)
			}
			dir := filepath.Dir(got[k+1])
			spec, _, _ := fb.PrepareBoot(context.Background(), "bzImage", "tcg", nil, t.TempDir())
			spec.Kernel, spec.Initrd = "bzImage", "initramfs.cpio"
			if want := runner.QEMUArgs(spec, dir); !slices.Equal(got, want) {
				t.Errorf("QEMU args\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestRunnerRetriesInfraOnce: a run that brings no results is an
// infrastructure error; the Runner retries it once and then reports
// infra-error, as with the local backend.
func TestRunnerRetriesInfraOnce(t *testing.T) {
	tree := testtree.Repo(t, nil)
	okQEMU := fakeQEMU(t, "printf '[    0.2] autosel: begin a 0\\n' > $CON; printf '@@AUTOSEL-HELLO 1\\n"+
		strings.ReplaceAll(frame("a", 0, "o {\"result\":\"pass\"}\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=3"), "\n", "\\n")+"@@AUTOSEL-DONE\\n' > $RES")
	for _, tt := range []struct {
		name     string
		failures int
		status   string
		runs     int
	}{
		{"one infra failure is retried", 1, report.VMOK, 3},
		{"two are reported", 100, report.VMInfraError, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := ghfake.New(t)
			var mu sync.Mutex
			n := 0
			play := playEntryPoint(t, okQEMU)
			srv.SetWorkflow(func(in map[string]string, asset []byte) (map[string][]byte, string) {
				mu.Lock()
				n++
				fail := n <= tt.failures
				mu.Unlock()
				if fail {
					return nil, "failure" // the job died before uploading anything
				}
				return play(in, asset)
			}, 0, 1)
			fb := &fakeBuilder{local: runner.NewLocal(runner.Options{Runs: 1})}
			be := newBackend(t, srv, fb, 2)
			r := runner.New(runner.Options{Retries: 1}, be)
			vm, err := r.Compare(context.Background(), tree, "HEAD", []runner.Patch{{Name: "p", Diff: []byte("x")}})
			if err != nil {
				t.Fatal(err)
			}
			if vm.Status != tt.status || vm.Backend != "github-actions" || len(srv.Runs()) != tt.runs {
				t.Errorf("status %s backend %s runs %d; want %s, %d runs (%s %v)", vm.Status, vm.Backend, len(srv.Runs()), tt.status, tt.runs, vm.Summary, vm.Notes)
			}
		})
	}
}

// TestInFlightAndCancel: at most MaxInFlight runs are in flight; when the
// context ends, the runs in flight are cancelled and their assets deleted.
func TestInFlightAndCancel(t *testing.T) {
	srv := ghfake.New(t)
	srv.SetWorkflow(func(map[string]string, []byte) (map[string][]byte, string) { return nil, "failure" }, 0, 1<<30)
	fb := &fakeBuilder{local: runner.NewLocal(runner.Options{Runs: 1})}
	be := newBackend(t, srv, fb, 2)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = be.Run(ctx, &runner.Request{Label: "k"})
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Runs()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the other two wait for a slot
	if n := len(srv.Runs()); n != 2 {
		t.Errorf("%d runs dispatched with 2 slots", n)
	}
	cancel()
	wg.Wait()
	for _, err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	}
	for _, r := range srv.Runs() {
		if r.Status != "completed" || r.Conclusion != "cancelled" {
			t.Errorf("run %d: %s %s, want cancelled", r.ID, r.Status, r.Conclusion)
		}
	}
	if srv.MaxActive() > 2 {
		t.Errorf("%d runs in flight at once", srv.MaxActive())
	}
	if a, _ := srv.Leftovers(); a != 0 {
		t.Errorf("%d assets left", a)
	}
}

// TestBuildFailureRunsNothing: a failed build is a result; nothing is
// uploaded or dispatched.
func TestBuildFailureRunsNothing(t *testing.T) {
	srv := ghfake.New(t)
	fb := &fakeBuilder{local: runner.NewLocal(runner.Options{}), status: runner.BuildFailed}
	kr, err := newBackend(t, srv, fb, 1).Run(context.Background(), &runner.Request{Label: "patched"})
	if err != nil || kr.Build.Status != runner.BuildFailed || len(srv.Requests()) != 0 {
		t.Fatalf("kr %+v err %v, %d requests", kr, err, len(srv.Requests()))
	}
}

// TestBundleRoundTrip: pack, unpack; foreign entries are refused.
func TestBundleRoundTrip(t *testing.T) {
	dir := t.TempDir()
	k, i := filepath.Join(dir, "k"), filepath.Join(dir, "i")
	os.WriteFile(k, []byte("kernel"), 0o644)
	os.WriteFile(i, []byte("initrd"), 0o644)
	spec := &runner.BootSpec{Kernel: k, Initrd: i, Accel: "kvm", Scale: 1, MemoryMB: 512, CPUs: 2, Cmdline: "c", Boot: time.Minute}
	p := filepath.Join(dir, "b.tar.gz")
	if err := packBundle(spec, p); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(p)
	defer f.Close()
	out := t.TempDir()
	got, err := unpackBundle(f, out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Kernel != kernelFile || got.Initrd != initrdFile || got.MemoryMB != 512 || got.Boot != time.Minute {
		t.Errorf("spec %+v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(out, kernelFile)); string(b) != "kernel" {
		t.Errorf("kernel %q", b)
	}
	if _, err := unpackBundle(strings.NewReader("not gzip"), t.TempDir()); err == nil {
		t.Error("garbage unpacked")
	}
}

func TestPruneConsoles(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, string(rune('a'+i))+".log")
		os.WriteFile(p, nil, 0o644)
		os.Chtimes(p, now, now.Add(time.Duration(i)*time.Minute))
	}
	pruneConsoles(dir, 2)
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 || ents[0].Name() != "d.log" || ents[1].Name() != "e.log" {
		t.Errorf("left %v", ents)
	}
}

package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBootSpecScalesLikeLocal(t *testing.T) {
	l := NewLocal(Options{BootTimeout: 10 * time.Second, SilenceTimeout: 5 * time.Second, TCGScale: 3, Runs: 2})
	tests := []Test{{Name: "a", Timeout: 4 * time.Second}, {Name: "m", Timeout: 2 * time.Second, Metric: true}}
	kvm := l.bootSpec("k", "i", "kvm", tests)
	tcg := l.bootSpec("k", "i", "tcg", tests)
	if kvm.Scale != 1 || tcg.Scale != 3 || kvm.Boot != 10*time.Second || tcg.Boot != 30*time.Second {
		t.Errorf("scale/boot: %+v %+v", kvm, tcg)
	}
	// boot + 1 run of a (4s+5s) + 2 runs of m (2s+5s) + 30s slack.
	if want := 10*time.Second + 9*time.Second + 14*time.Second + 30*time.Second; kvm.Total != want {
		t.Errorf("total %s, want %s", kvm.Total, want)
	}
	if kvm.Silence != 19*time.Second || tcg.Silence != 27*time.Second {
		t.Errorf("silence %s %s", kvm.Silence, tcg.Silence)
	}
	args := QEMUArgs(&kvm, "/run")
	if !slices.Contains(args, "/dev/fd/3") || !slices.Contains(args, "kvm") || !slices.Contains(args, "file,id=res,append=on,path=/dev/fdset/1") ||
		!slices.Contains(args, qemuSandbox) {
		t.Errorf("args %q", args)
	}
	if k := kvm.inDir("/run").Kernel; k != "/run/k" {
		t.Errorf("relative kernel resolved to %q", k)
	}
	abs := kvm
	abs.Kernel = "/images/bzImage"
	if k := abs.inDir("/run").Kernel; k != "/images/bzImage" {
		t.Errorf("absolute kernel path rewritten: %q", k)
	}
}

// TestBootAndEvalBoot: a remote boot (Boot) and its evaluation (EvalBoot)
// give the local verdicts.
func TestBootAndEvalBoot(t *testing.T) {
	ok := "@@AUTOSEL-HELLO 1\n" + mkFrame("a", 0, "o {\"result\":\"pass\"}\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=3") + "@@AUTOSEL-DONE\n"
	qemu := fakeQEMU(t, "printf '[ 0.1] autosel: begin a 0\\n' > $CON; printf '"+strings.ReplaceAll(ok, "\n", "\\n")+"' > $RES")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bzImage"), []byte("k"), 0o644)
	os.WriteFile(filepath.Join(dir, "initramfs.cpio"), []byte("i"), 0o644)
	spec := &BootSpec{Kernel: "bzImage", Initrd: "initramfs.cpio", Accel: "tcg", Scale: 1, MemoryMB: 64, CPUs: 1,
		Cmdline: kernelCmdline, Boot: 2 * time.Second, Total: 5 * time.Second, Silence: 3 * time.Second}
	out, err := Boot(context.Background(), qemu, spec, dir)
	if err != nil || out.Stopped || out.Infra != "" {
		t.Fatalf("boot: %+v %v", out, err)
	}
	console, _ := os.ReadFile(filepath.Join(dir, "console.log"))
	results, _ := os.ReadFile(filepath.Join(dir, "results.log"))
	kr := &KernelResult{}
	NewLocal(Options{}).EvalBoot(kr, spec, out, console, results, []Test{{Name: "a", Timeout: time.Second}})
	if kr.Boot != "ok" || kr.Accel != "tcg" || len(kr.Tests) != 1 || kr.Tests[0].Verdict != Pass {
		t.Errorf("kr %+v", kr)
	}
	bad, err := Boot(context.Background(), fakeQEMU(t, "exit 1"), spec, t.TempDir())
	if err == nil || bad == nil || bad.Infra == "" {
		t.Errorf("QEMU that cannot run: %+v %v", bad, err)
	}
}

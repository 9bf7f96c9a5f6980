package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeQEMU writes a shell script standing in for qemu-system-x86_64: it
// runs body, where "> $CON" writes to the console (QEMU's stdout) and
// "> $RES" to the results port (descriptor 5). It lives where the QEMU
// user (nobody, when the tests run as root) can run it.
func fakeQEMU(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(publicDir(t), "qemu")
	body = strings.NewReplacer("> $CON", ">&1", "> $RES", ">&5").Replace(body)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func fakeSpec(t *testing.T, qemu string) vmSpec {
	img := t.TempDir()
	for _, f := range []string{"k", "i"} {
		if err := os.WriteFile(filepath.Join(img, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return vmSpec{qemu: qemu, memMB: 64, cpus: 1, accel: "tcg", kernel: filepath.Join(img, "k"), initrd: filepath.Join(img, "i"), cmdline: kernelCmdline,
		dir: t.TempDir(), boot: 2 * time.Second, total: 5 * time.Second, silence: 3 * time.Second}
}

func TestRunVMOutcomes(t *testing.T) {
	okRun := "@@AUTOSEL-HELLO 1\n" + mkFrame("a", 0, "o {\"result\":\"pass\"}\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=3") + "@@AUTOSEL-DONE\n"
	tests := []struct {
		name    string
		body    string
		infra   bool
		stopped string // substring of why when the host stopped the VM
		boot    string
		verdict Verdict
	}{
		{"clean run", "printf '[    0.1] booting\\n[    0.2] autosel: begin a 0\\n' > $CON; printf '" + strings.ReplaceAll(okRun, "\n", "\\n") + "' > $RES", false, "", "ok", Pass},
		{"panic before init", "printf '[    0.5] Kernel panic - not syncing: VFS: Unable to mount root fs\\n[    0.6] ---[ end Kernel panic ]---\\n' > $CON", false, "", "boot-failure", BootFailure},
		{"never boots", "printf 'x\\n' > $CON; sleep 30", false, "init did not start", "boot-failure", BootFailure},
		{"silent after hello", "printf '[ 1.0] autosel: begin a 0\\n' > $CON; printf '@@AUTOSEL-HELLO 1\\n@@AUTOSEL-BEGIN a 0\\n' > $RES; sleep 30", false, "no output", "ok", Hang},
		{"cannot start", "echo 'qemu: could not load kernel' >&2; exit 1", true, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := fakeSpec(t, fakeQEMU(t, tt.body))
			start := time.Now()
			out, err := runVM(context.Background(), spec)
			if tt.infra {
				if !errors.Is(err, errQEMU) || !strings.Contains(err.Error(), "could not load kernel") {
					t.Fatalf("err = %v, want an infrastructure error with QEMU's message", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 10*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
			if tt.stopped != "" && (!out.stopped || !strings.Contains(out.why, tt.stopped)) {
				t.Errorf("stopped=%v why=%q, want %q", out.stopped, out.why, tt.stopped)
			}
			kr := &KernelResult{}
			evalVM(kr, out, []Test{{Name: "a", Timeout: time.Second}}, func(Test) int { return 1 }, 1)
			if kr.Boot != tt.boot {
				t.Errorf("boot %q, want %q (%s)", kr.Boot, tt.boot, kr.BootDetail)
			}
			if len(kr.Tests) != 1 || kr.Tests[0].Verdict != tt.verdict {
				t.Fatalf("tests %+v, want %s", kr.Tests, tt.verdict)
			}
			if tt.boot == "boot-failure" && tt.stopped == "" && !strings.Contains(kr.BootDetail, "Kernel panic") {
				t.Errorf("boot detail lacks the panic: %q", kr.BootDetail)
			}
		})
	}
}

func TestRunVMContextCancel(t *testing.T) {
	spec := fakeSpec(t, fakeQEMU(t, "printf 'x\\n' > $CON; sleep 30"))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := runVM(ctx, spec); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

// TestKernelCmdline: the guest command line keeps the parameters the
// runner's verdicts depend on.
func TestKernelCmdline(t *testing.T) {
	fields := map[string]bool{}
	for _, f := range strings.Fields(kernelCmdline) {
		fields[f] = true
	}
	for _, want := range []string{
		"console=ttyS0,115200", // the console the runner reads
		"rdinit=/init",         // the suite's initrd
		"panic=-1",             // a panic ends QEMU at once (-no-reboot)
		"no_timer_check",       // no spurious IO-APIC timer panic under TCG on a busy host
	} {
		if !fields[want] {
			t.Errorf("kernel command line %q lacks %s", kernelCmdline, want)
		}
	}
}

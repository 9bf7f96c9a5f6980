package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/report"
)

// Issue 37: what a hostile guest can do to the host through QEMU. The
// guest here is firmware of a few bytes (floodFirmware), so no kernel is
// built.

// floodFirmware writes a 64 KiB PC BIOS image whose reset vector loops
// forever writing ESC 'X' to COM1: a guest flooding the console with
// terminal escape sequences as fast as the emulated UART goes.
func floodFirmware(t *testing.T) string {
	t.Helper()
	img := make([]byte, 64<<10)
	code := []byte{
		0xBA, 0xF8, 0x03, // mov dx, 0x3f8
		0xB0, 0x1B, // loop: mov al, 0x1b
		0xEE,       // out dx, al
		0xB0, 0x58, // mov al, 'X'
		0xEE,       // out dx, al
		0xEB, 0xF8, // jmp loop
	}
	copy(img[0xFFF0:], code)
	p := filepath.Join(publicDir(t), "flood.bin")
	if err := os.WriteFile(p, img, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// publicDir returns a new directory the QEMU user (nobody) can read:
// t.TempDir's parents are private to the bot's user.
func publicDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "autosel-qemu-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// realQEMU returns a wrapper running the host's qemu-system-x86_64 with
// the runner's arguments, the kernel, initrd and command line replaced by
// firmware (exec: the wrapper's pid is QEMU's).
func realQEMU(t *testing.T, firmware string) string {
	t.Helper()
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		t.Skip("qemu-system-x86_64 not installed")
	}
	p := filepath.Join(publicDir(t), "qemu")
	script := `#!/bin/sh
n=$#
i=0
skip=0
for a in "$@"; do
  i=$((i+1))
  if [ $skip = 1 ]; then skip=0; continue; fi
  case $a in
    -kernel|-initrd|-append) skip=1; continue ;;
  esac
  set -- "$@" "$a"
done
shift $n
exec ` + qemu + ` "$@" -bios ` + firmware + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileConsoleFlood replays issue 37 point 6: a guest printing
// megabytes of escape sequences. Memory, console.log, the boot detail and
// the reply's excerpt stay bounded and say what was dropped; the terminal
// text has no raw escape character.
func TestHostileConsoleFlood(t *testing.T) {
	const head, tail = 16 << 10, 16 << 10
	tests := []struct {
		name string
		qemu func(t *testing.T) string
	}{
		{"fake guest, 11 MB", func(t *testing.T) string {
			return fakeQEMU(t, `i=0; while [ $i -lt 11 ]; do head -c 1000000 /dev/zero | tr '\0' '\033'; i=$((i+1)); done > $CON; sleep 30`)
		}},
		{"real QEMU, UART flood", func(t *testing.T) string { return realQEMU(t, floodFirmware(t)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := fakeSpec(t, tt.qemu(t))
			spec.head, spec.tail = head, tail
			spec.boot, spec.total, spec.silence = 4*time.Second, 8*time.Second, 3*time.Second
			out, err := runVM(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(filepath.Join(spec.dir, "console.log"))
			if err != nil {
				t.Fatal(err)
			}
			if len(out.console) > head+tail+200 || fi.Size() > int64(head+tail+200) {
				t.Fatalf("kept %d bytes in memory, %d on disk; bound %d", len(out.console), fi.Size(), head+tail)
			}
			if !strings.Contains(string(out.console), "bytes of output dropped") {
				t.Fatalf("console does not say what was dropped (%d bytes)", len(out.console))
			}
			kr := &KernelResult{}
			evalVM(kr, out, []Test{{Name: "a", Timeout: time.Second}}, func(Test) int { return 1 }, 1)
			if kr.Boot != string(BootFailure) {
				t.Fatalf("boot %q", kr.Boot)
			}
			vm := &report.VMReport{Status: report.VMBootFailure, Build: "ok", BootDetail: kr.BootDetail}
			reply := vm.TextWith(report.VMTextOptions{Brief: true})
			if len(reply) > 16<<10 {
				t.Fatalf("reply quotes %d bytes of console", len(reply))
			}
			if term := report.EscapeText(vm.Text()); strings.ContainsRune(term, 0x1b) {
				t.Fatal("terminal text holds a raw ESC")
			}
		})
	}
}

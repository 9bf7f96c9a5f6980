package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/runner"
)

// TestMain runs main when re-executed by the tests below.
func TestMain(m *testing.M) {
	if os.Getenv("AUTOSEL_VM_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AUTOSEL_VM_MAIN=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func writeBundle(t *testing.T, path string, spec runner.BootSpec) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	js, _ := json.Marshal(spec)
	for name, data := range map[string][]byte{"spec.json": js, "bzImage": []byte("k"), "initramfs.cpio": []byte("i")} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	tw.Close()
	gz.Close()
}

// TestEntryPoint runs the workflow's entry point as the workflow does:
// a guest outcome exits 0 with the three result files, a QEMU that cannot
// start exits 1 (infra, recorded in outcome.json), bad usage exits 2.
func TestEntryPoint(t *testing.T) {
	if code, _ := run(t); code != 2 {
		t.Errorf("no bundle: exit %d", code)
	}
	dir := t.TempDir()
	bundle := filepath.Join(dir, "b.tar.gz")
	writeBundle(t, bundle, runner.BootSpec{Kernel: "bzImage", Initrd: "initramfs.cpio", Accel: "tcg", Scale: 1, MemoryMB: 64, CPUs: 1,
		Cmdline: "console=ttyS0", Boot: 2 * time.Second, Total: 5 * time.Second, Silence: 2 * time.Second})
	// QEMU's stdout is the console; the script must be readable by the
	// QEMU user (nobody when the test runs as root).
	pub, err := os.MkdirTemp("", "autosel-fake-qemu-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(pub) })
	os.Chmod(pub, 0o755)
	qemu := filepath.Join(pub, "qemu")
	os.WriteFile(qemu, []byte("#!/bin/sh\nprintf 'Kernel panic - not syncing: test\\n'\n"), 0o755)
	out := filepath.Join(dir, "out")
	if code, msg := run(t, "--bundle", bundle, "--out", out, "--qemu", qemu); code != 0 {
		t.Fatalf("boot: exit %d: %s", code, msg)
	}
	for _, f := range []string{"console.log", "results.log", "outcome.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	bad := filepath.Join(dir, "bad-qemu")
	os.WriteFile(bad, []byte("#!/bin/sh\necho no >&2\nexit 1\n"), 0o755)
	out2 := filepath.Join(dir, "out2")
	if code, _ := run(t, "--bundle", bundle, "--out", out2, "--qemu", bad); code != 1 {
		t.Errorf("QEMU that cannot start: exit %d", code)
	}
	var o runner.BootOutcome
	b, _ := os.ReadFile(filepath.Join(out2, "outcome.json"))
	if json.Unmarshal(b, &o) != nil || o.Infra == "" {
		t.Errorf("outcome %s", b)
	}
}

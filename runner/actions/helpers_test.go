package actions

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/github"
	"github.com/autosel-bot/autosel-bot/internal/ghfake"
	"github.com/autosel-bot/autosel-bot/runner"
)

// fakeBuilder builds nothing: a dummy kernel and initramfs, one test "a",
// short watchdog limits. Evaluation is the real local backend's.
type fakeBuilder struct {
	local  *runner.Local
	status string
}

func (f *fakeBuilder) Build(ctx context.Context, req *runner.Request) (*runner.BuildResult, error) {
	if f.status != "" && f.status != runner.BuildOK {
		return &runner.BuildResult{Status: f.status, Errors: []string{"x.c:1: error: boom"}}, nil
	}
	k := filepath.Join(os.TempDir(), "autosel-actions-test-bzImage")
	if err := os.WriteFile(k, []byte("not a kernel"), 0o644); err != nil {
		return nil, err
	}
	return &runner.BuildResult{Status: runner.BuildOK, Kernel: k, Commit: "abc"}, nil
}

func (f *fakeBuilder) PrepareBoot(ctx context.Context, kernel, accel string, tests []runner.Test, dir string) (*runner.BootSpec, []runner.Test, error) {
	initrd := filepath.Join(dir, "initramfs.cpio")
	if err := os.WriteFile(initrd, []byte("070701 fake"), 0o644); err != nil {
		return nil, nil, err
	}
	return &runner.BootSpec{Kernel: kernel, Initrd: initrd, Accel: accel, Scale: 1, MemoryMB: 64, CPUs: 1,
			Cmdline: "console=ttyS0", Boot: 3 * time.Second, Total: 8 * time.Second, Silence: time.Second},
		[]runner.Test{{Name: "a", Timeout: time.Second}}, nil
}

func (f *fakeBuilder) EvalBoot(kr *runner.KernelResult, spec *runner.BootSpec, out *runner.BootOutcome, console, results []byte, tests []runner.Test) {
	f.local.EvalBoot(kr, spec, out, console, results, tests)
}

// fakeQEMU is a shell script standing in for QEMU: it records its
// arguments next to itself and runs body, where "> $CON" writes to the
// console (QEMU's stdout) and "> $RES" to the results port (descriptor
// 5). It lives in a directory the QEMU user (nobody, when the tests run
// as root) can read and write.
func fakeQEMU(t *testing.T, body string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "autosel-fake-qemu-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "qemu")
	body = strings.NewReplacer("> $CON", ">&1", "> $RES", ">&5").Replace(body)
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"" + dir + "/args\"\n" + body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// frame is one results frame as the guest's init writes it.
func frame(name string, run int, body, status string) string {
	return fmt.Sprintf("@@AUTOSEL-BEGIN %s %d\n%s@@AUTOSEL-END %s %d %s len=%d crc=%08x\n",
		name, run, body, name, run, status, len(body), crc32.ChecksumIEEE([]byte(body)))
}

// playEntryPoint plays the workflow the way the hosted runner does: the
// bundle goes through RunBundle (cmd/autosel-vm's code) with qemu, the
// results directory is zipped as the artifact.
func playEntryPoint(t *testing.T, qemu string) ghfake.WorkflowFunc {
	return func(inputs map[string]string, asset []byte) (map[string][]byte, string) {
		dir := t.TempDir()
		bundle := filepath.Join(dir, "bundle.tar.gz")
		if err := os.WriteFile(bundle, asset, 0o644); err != nil {
			t.Error(err)
			return nil, "failure"
		}
		out := filepath.Join(dir, "results")
		_, err := RunBundle(context.Background(), bundle, out, qemu)
		z, zerr := zipDir(out)
		if zerr != nil {
			return nil, "failure"
		}
		concl := "success"
		if err != nil {
			concl = "failure"
		}
		return map[string][]byte{"autosel-results-" + inputs["run_key"]: z}, concl
	}
}

// zipDir packs the files of dir as upload-artifact does.
func zipDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		w, err := zw.Create(e.Name())
		if err != nil {
			return nil, err
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newBackend is a backend on the fake with fast polling.
func newBackend(t *testing.T, srv *ghfake.Server, b runner.Builder, inFlight int) *Backend {
	t.Helper()
	c, err := github.NewClient(github.ClientOptions{Token: "t0ken", BaseURL: srv.APIURL(), UploadURL: srv.UploadURL(),
		Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, WriteGap: -1})
	if err != nil {
		t.Fatal(err)
	}
	be, err := New(c, b, Options{Repo: "autosel/ci", Accel: "tcg", MaxInFlight: inFlight, PollInterval: 5 * time.Millisecond,
		FindTimeout: 5 * time.Second, RunTimeout: 30 * time.Second, WorkDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return be
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

func TestTestCmdUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"test"}, "--tree is required"},
		{[]string{"test", "--tree", ".", "--patch", "x", "--range", "a..b"}, "not both"},
		{[]string{"test", "--tree", ".", "--format", "xml"}, "--format"},
		{[]string{"test", "--tree", ".", "--range", "nodots"}, "want A..B"},
		{[]string{"test", "--tree", ".", "--range", "--output=x..b"}, "want A..B"},
		{[]string{"test", "--tree", ".", "--tests", "nope"}, "unknown suite test"},
		{[]string{"test", "--tree", ".", "--patch", "/nonexistent.patch"}, "nonexistent"},
		{[]string{"test", "--tree", ".", "--backend", "cloud"}, "want local or lava"},
		{[]string{"test", "--tree", ".", "--backend", "lava"}, "runner.lava.url"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, "", tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestTestCmdRefusedRange: --range turns the commits into one patch; one
// that touches a Makefile is refused before anything is built (exit 1,
// JSON on stdout).
func TestTestCmdRefusedRange(t *testing.T) {
	dir := t.TempDir()
	gitc := func(args ...string) {
		t.Helper()
		testtree.Git(t, dir, args...)
	}
	gitc("init", "-q")
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n"), 0o644)
	gitc("add", "Makefile")
	gitc("commit", "-q", "-m", "a")
	gitc("tag", "A")
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\ttouch /tmp/pwned\n"), 0o644)
	gitc("commit", "-q", "-am", "b")
	code, stdout, stderr := runCLI(t, "", "test", "--tree", dir, "--range", "A..HEAD", "--format", "json",
		"--config", writeRunnerConfig(t))
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var vm struct {
		Status   string   `json:"status"`
		Refusals []string `json:"refusals"`
	}
	if err := json.Unmarshal([]byte(stdout), &vm); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if vm.Status != "refused" || len(vm.Refusals) == 0 || !strings.Contains(vm.Refusals[0], "Makefile") {
		t.Fatalf("%+v", vm)
	}
}

// TestTestCmdLavaBackend: --backend lava wires the lava backend (the
// report names it); a refused patch never reaches the lab, so none is needed.
func TestTestCmdLavaBackend(t *testing.T) {
	dir := testtree.Repo(t, nil)
	os.WriteFile(filepath.Join(dir, "fix.patch"), []byte("diff --git a/fs/Makefile b/fs/Makefile\n--- a/fs/Makefile\n+++ b/fs/Makefile\n@@ -1 +1,2 @@\n obj-y := a.o\n+$(shell id)\n"), 0o644)
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("runner:\n  work_dir: "+t.TempDir()+"\n  lava:\n    url: http://127.0.0.1:9/\n"), 0o644)
	code, stdout, stderr := runCLI(t, "", "test", "--tree", dir, "--patch", filepath.Join(dir, "fix.patch"), "--backend", "lava",
		"--format", "json", "--config", cfg)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var vm struct {
		Status  string `json:"status"`
		Backend string `json:"backend"`
	}
	if err := json.Unmarshal([]byte(stdout), &vm); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if vm.Status != "refused" || vm.Backend != "lava" {
		t.Fatalf("%+v", vm)
	}
}

// writeRunnerConfig points the runner's caches at a temp dir.
func writeRunnerConfig(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(p, []byte("runner:\n  work_dir: "+t.TempDir()+"\n"), 0o644)
	return p
}

// TestTestCmdList: --list prints the suite and the kselftest targets the
// patch's files call for, with the reasons and the budget's cuts, and
// builds nothing.
func TestTestCmdList(t *testing.T) {
	dir := t.TempDir()
	gitc := func(args ...string) {
		t.Helper()
		testtree.Git(t, dir, args...)
	}
	gitc("init", "-q")
	os.WriteFile(filepath.Join(dir, "MAINTAINERS"), []byte("Header\n\nMEMORY MANAGEMENT\nF:\tmm/\nF:\ttools/testing/selftests/vm/\n"), 0o644)
	gitc("add", "MAINTAINERS")
	gitc("commit", "-q", "-m", "a")
	patch := filepath.Join(t.TempDir(), "p.patch")
	os.WriteFile(patch, []byte("--- a/kernel/futex/core.c\n+++ b/kernel/futex/core.c\n@@ -1 +1 @@\n-a\n+b\n"+
		"--- a/mm/vmscan.c\n+++ b/mm/vmscan.c\n@@ -1 +1 @@\n-a\n+b\n"+
		"--- a/kernel/time/hrtimer.c\n+++ b/kernel/time/hrtimer.c\n@@ -1 +1 @@\n-a\n+b\n"), 0o644)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(cfg, []byte("runner:\n  work_dir: "+t.TempDir()+"\n  kselftest_budget: 160s\n"), 0o644)
	code, stdout, stderr := runCLI(t, "", "test", "--tree", dir, "--patch", patch, "--list", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"runner suite (always): pipe_two_readers, epoll_wakeup",
		"kselftest futex (~60s; all tests)",
		"because kernel/futex/core.c: the futex syscalls are implemented here (table)",
		`kselftest vm (~90s;`,
		`because mm/vmscan.c: MAINTAINERS "MEMORY MANAGEMENT" lists it (F: fallback)`,
		"kselftest timers (~120s) dropped: over the time budget of 2m40s",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	code, _, stderr = runCLI(t, "", "test", "--tree", dir, "--patch", patch, "--list", "--config", writeKselftestOff(t))
	if code != 2 || !strings.Contains(stderr, "runner.kselftests") {
		t.Errorf("bad kselftests value: exit %d, %s", code, stderr)
	}
}

func writeKselftestOff(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(p, []byte("runner:\n  kselftests: maybe\n"), 0o644)
	return p
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/autosel-bot/autosel-bot/config"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

const seed002 = "../../testdata/seeds/002-watch-queue-v5.mbox"
const seed000 = "../../testdata/seeds/000-pipe-exclusive-autosel.mbox"

// runCLI runs the root command like main does and returns the exit code.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	v, err := config.New()
	if err != nil {
		t.Fatal(err)
	}
	a := &app{v: v}
	root := newRoot(a)
	var out, errb bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetIn(strings.NewReader(stdin))
	err = root.Execute()
	if err != nil {
		errb.WriteString("autosel-bot: " + err.Error() + "\n")
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code, out.String(), errb.String()
		}
		return 2, out.String(), errb.String()
	}
	return 0, out.String(), errb.String()
}

// benign is a documentation-only patch: no rule has anything to say.
const benign = `From: A U Thor <author@example.org>
Date: Tue, 2 Jan 2024 03:04:05 +0000
Message-ID: <benign-1@example.org>
Subject: [PATCH] docs: fix a typo

Signed-off-by: A U Thor <author@example.org>
---
diff --git a/Documentation/filesystems/pipe.rst b/Documentation/filesystems/pipe.rst
index 1111111..2222222 100644
--- a/Documentation/filesystems/pipe.rst
+++ b/Documentation/filesystems/pipe.rst
@@ -1,3 +1,3 @@
 Pipes
 =====
-A pipe is a unidirectinal channel.
+A pipe is a unidirectional channel.
`

// damaged has a context line whose leading space a mail client ate.
const damaged = `From: A U Thor <author@example.org>
Date: Tue, 2 Jan 2024 03:04:05 +0000
Message-ID: <damaged-1@example.org>
Subject: [PATCH] pipe: tweak

---
diff --git a/fs/pipe.c b/fs/pipe.c
--- a/fs/pipe.c
+++ b/fs/pipe.c
@@ -10,3 +10,3 @@ static int f(void)
 	int a;
-	a = 1;
+	a = 2;
	return a;
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckSeed002Text(t *testing.T) {
	code, out, stderr := runCLI(t, "", "check", "--fail-on", "risk", seed002)
	if code == 2 {
		t.Fatalf("exit 2: %s", stderr)
	}
	if n := strings.Count(out, "[PATCH v5 x/2] "); n != 1 {
		t.Errorf("%d series headers \"[PATCH v5 x/2]\", want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "version 5, 2 patches") {
		t.Errorf("no \"2 patches\" summary:\n%s", out)
	}
	for _, s := range []string{"\n[PATCH v5 1/2] watch_queue: refactor post_one_notification\n",
		"\n[PATCH v5 2/2] pipe: use __pipe_{lock,unlock} instead of spinlock\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("patch heading %q missing", s)
		}
	}
	for _, fn := range []string{"post_one_notification()", "pipe_read()", "pipe_write()", "pipe_resize_ring()", "free_pipe_info()"} {
		if !strings.Contains(out, fn) {
			t.Errorf("function %s not listed", fn)
		}
	}
	for _, f := range []string{"fs/pipe.c", "include/linux/watch_queue.h", "kernel/watch_queue.c", "include/linux/pipe_fs_i.h"} {
		if !strings.Contains(out, "  "+f) {
			t.Errorf("file %s not listed", f)
		}
	}
}

func TestCheckSeed002JSON(t *testing.T) {
	code, out, stderr := runCLI(t, "", "check", "--format", "json", seed002)
	if code == 2 {
		t.Fatalf("exit 2: %s", stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d JSON objects, want one series", len(lines))
	}
	var r struct {
		Schema  string `json:"schema"`
		Subject string `json:"subject"`
		Version int    `json:"version"`
		Total   int    `json:"total"`
		Patches []struct {
			Number int      `json:"number"`
			Files  []string `json:"files"`
			Funcs  []string `json:"funcs"`
		} `json:"patches"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatal(err)
	}
	if r.Schema == "" || r.Version != 5 || r.Total != 2 || len(r.Patches) != 2 {
		t.Fatalf("series %+v", r)
	}
	all := strings.Join(append(r.Patches[0].Funcs, r.Patches[1].Funcs...), " ")
	for _, fn := range []string{"kernel/watch_queue.c:post_one_notification", "fs/pipe.c:pipe_read", "fs/pipe.c:pipe_write", "fs/pipe.c:pipe_resize_ring"} {
		if !strings.Contains(all, fn) {
			t.Errorf("JSON funcs lack %s: %s", fn, all)
		}
	}
}

func TestCheckExitCodes(t *testing.T) {
	good := writeFile(t, "benign.patch", benign)
	bad := writeFile(t, "damaged.patch", damaged)
	fifo := filepath.Join(t.TempDir(), "fifo.mbox")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
		stdout string
	}{
		{"benign patch", "", []string{"check", good}, 0, "", "No findings."},
		{"benign patch on stdin", benign, []string{"check", "-"}, 0, "", "[PATCH] docs: fix a typo"},
		{"findings at or above note", "", []string{"check", "--fail-on", "note", seed000}, 1, "at or above note", "lost-wakeup"},
		{"no input", "", []string{"check"}, 2, "no input", ""},
		{"bad format", "", []string{"check", "--format", "xml", good}, 2, "--format", ""},
		{"bad fail-on", "", []string{"check", "--fail-on", "bug", good}, 2, "--fail-on", ""},
		{"no workers", "", []string{"check", "--workers", "0", good}, 2, "--workers 0: want 1 or more", ""},
		{"missing file", "", []string{"check", "/nonexistent/x.mbox"}, 2, "nothing could be processed", ""},
		{"missing file among good ones: still processed", "", []string{"check", "/nonexistent/x.mbox", good}, 0, "/nonexistent/x.mbox: stat", "[PATCH] docs: fix a typo"},
		{"only a FIFO: skipped, not hung", "", []string{"check", fifo}, 2, "fifo.mbox: not a regular file; skipped (FIFO)", ""},
		{"a device and a good patch", "", []string{"check", "/dev/zero", good}, 0, "/dev/zero: not a regular file; skipped (character device)", "[PATCH] docs: fix a typo"},
		{"not a patch", "From: a@b\nSubject: hello\n\nhi\n", []string{"check", "-"}, 2, "no patches", ""},
		{"only a damaged patch", "", []string{"check", bad}, 2, "damaged-1@example.org", ""},
		{"damaged and good: still processed", "", []string{"check", bad, good}, 0, "<damaged-1@example.org>: body line 5: malformed diff: fragment header miscounts lines", "[PATCH] docs: fix a typo"},
		{"repo without range", "", []string{"check", "--repo", ".", good}, 2, "--repo needs --range", ""},
		{"range and files", "", []string{"check", "--repo", ".", "--range", "a..b", good}, 2, "not both", ""},
		{"bad range", "", []string{"check", "--repo", ".", "--range", "--all"}, 2, "A..B", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out)
			}
		})
	}
}

func TestCheckRange(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		testtree.Git(t, dir, args...)
	}
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(dir, "x.c"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "master")
	write("void f(void)\n{\n\ta();\n}\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	write("void f(void)\n{\n\tb();\n}\n")
	git("commit", "-q", "-am", "x: call b")
	write("void f(void)\n{\n\tb();\n\tc();\n}\n")
	git("commit", "-q", "-am", "x: call c")
	code, out, stderr := runCLI(t, "", "check", "--repo", dir, "--range", "HEAD~2..HEAD")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"[PATCH x/2] x: call b", "version 1, 2 patches", "[PATCH 2/2] x: call c", "x.c: f()"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func TestCheckHelpDocumentsExitCodes(t *testing.T) {
	_, out, _ := runCLI(t, "", "check", "--help")
	for _, s := range []string{"Exit status:", "--fail-on", "--tree", "--range", "JSON Lines"} {
		if !strings.Contains(out, s) {
			t.Errorf("help lacks %q", s)
		}
	}
}

func TestCheckEmail(t *testing.T) {
	cfg := writeFile(t, "c.yaml", "reply:\n  greeting: Hello there\n")
	code, out, stderr := runCLI(t, "", "--config", cfg, "check", "--format", "email", "../../testdata/seeds/004-epoll-autoremove.mbox")
	if code == 2 {
		t.Fatalf("exit 2: %s", stderr)
	}
	for _, s := range []string{"Hello there\n", "[This is an automated email]", "https://lore.kernel.org/r/20200430130326.1368509-2-rpenyaev@suse.de"} {
		if !strings.Contains(out, s) {
			t.Errorf("email lacks %q:\n%s", s, out)
		}
	}
}

func TestCheckTree(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index cache
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "fs"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "static int f(void)\n{\n\tint a;\n\ta = 1;\n\treturn a;\n}\n"
	if err := os.WriteFile(filepath.Join(tree, "fs/pipe.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// The damaged patch's hunk, repaired, at the wrong line: applies at an offset.
	good := writeFile(t, "fix.patch", strings.Replace(damaged, "\treturn a;\n", " \treturn a;\n", 1))
	code, out, stderr := runCLI(t, "", "check", "--tree", tree, good)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "fs/pipe.c: f()") || strings.Contains(out, "patch-only") || strings.Contains(out, "does not apply") {
		t.Errorf("tree-mode output:\n%s", out)
	}
	// The tree on disk is never written.
	if b, _ := os.ReadFile(filepath.Join(tree, "fs/pipe.c")); string(b) != src {
		t.Error("check --tree wrote to the tree")
	}
	if code, _, stderr := runCLI(t, "", "check", "--tree", filepath.Join(tree, "nope"), good); code != 2 || !strings.Contains(stderr, "tree") {
		t.Errorf("missing tree: exit %d %s", code, stderr)
	}
}

// TestCheckWorkersSameOutput: the seed threads (several series, one of
// several stacked patches) give the same report, in the same order, with
// one series at a time and with three at once.
func TestCheckWorkersSameOutput(t *testing.T) {
	seeds, err := filepath.Glob("../../testdata/seeds/*.mbox")
	if err != nil || len(seeds) < 2 {
		t.Fatalf("seeds: %v %v", seeds, err)
	}
	var outs []string
	for _, w := range []string{"1", "3"} {
		code, out, stderr := runCLI(t, "", append([]string{"check", "--workers", w, "--format", "json", "--fail-on", "risk"}, seeds...)...)
		if code != 1 || strings.Count(out, "\n") < len(seeds) {
			t.Fatalf("--workers %s: exit %d, %d reports\nstderr: %s", w, code, strings.Count(out, "\n"), stderr)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("--workers 3 report differs from --workers 1:\n%s\nwant\n%s", outs[1], outs[0])
	}
}

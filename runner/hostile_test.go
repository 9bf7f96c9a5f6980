package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// The attacks of issue 13, one row each. Rows the patch guard refuses run
// without a kernel build (TestHostilePatches); rows that get past the
// guard by design and must be contained by the sandbox and the build-log
// filter build a kernel (TestIntegrationHostileBuilds). Every row checks
// that its marker file did not appear outside the build area.

// markerPath is where a row's payload tries to leave its marker.
func markerPath(row string) string { return "/tmp/autosel-hostile-" + row }

// fileHead returns the first three lines of path at base in the kernel
// tree.
func fileHead(t *testing.T, tree, path string) []string {
	t.Helper()
	return strings.SplitN(testtree.Git(t, tree, "show", "base:"+path), "\n", 4)[:3]
}

// addAfterLine1 is a patch adding lines after the first line of path;
// name is how the diff spells the path (possibly git-quoted, with a/ b/).
func addAfterLine1(t *testing.T, tree, path, aName, bName string, added ...string) string {
	t.Helper()
	head := fileHead(t, tree, path)
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git %s %s\n--- %s\n+++ %s\n@@ -1,3 +1,%d @@\n %s\n", aName, bName, aName, bName, 3+len(added), head[0])
	for _, l := range added {
		b.WriteString("+" + l + "\n")
	}
	fmt.Fprintf(&b, " %s\n %s\n", head[1], head[2])
	return b.String()
}

func plainAdd(t *testing.T, tree, path string, added ...string) string {
	return addAfterLine1(t, tree, path, "a/"+path, "b/"+path, added...)
}

// defaultGuard is the guard of the shipped configuration (config.yaml).
func defaultOptions(t *testing.T, work string) Options {
	t.Helper()
	var opts Options
	if err := configtest.Section("runner", &opts); err != nil {
		t.Fatal(err)
	}
	if err := configtest.Section("sandbox", &opts.Sandbox); err != nil {
		t.Fatal(err)
	}
	opts.WorkDir = work
	return opts.WithDefaults()
}

func TestHostilePatches(t *testing.T) {
	tree := testkernel.Dir(t)
	touch := func(row string) string { return "$(shell touch " + markerPath(row) + ")" }
	hostTool := func(row, path string) string {
		return plainAdd(t, tree, path, `static int __attribute__((constructor)) pwn(void) { return system("touch `+markerPath(row)+`"); }`)
	}
	rows := []struct {
		name  string
		patch string
		want  string // substring of a refusal
	}{
		{"octal-makefile", addAfterLine1(t, tree, "Makefile", `"a/\115akefile"`, `"b/\115akefile"`, touch("octal-makefile")), "Makefile: changes code that runs on the host"},
		{"octal-fs-makefile", addAfterLine1(t, tree, "fs/Makefile", `"a/fs/\115akefile"`, `"b/fs/\115akefile"`, touch("octal-fs-makefile")), "fs/Makefile: changes code"},
		{"symlink-two-spaces", "diff --git a/fs/autosel-link b/fs/autosel-link\nnew file mode  120000\n--- /dev/null\n+++ b/fs/autosel-link\n@@ -0,0 +1 @@\n+/etc/shadow\n\\ No newline at end of file\n", "symbolic link"},
		{"symlink-tab", "diff --git a/include/autosel-link.h b/include/autosel-link.h\nnew file mode\t120000\n--- /dev/null\n+++ b/include/autosel-link.h\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n", "symbolic link"},
		{"gitlink", "diff --git a/fs/sub b/fs/sub\nnew file mode 160000\nindex 0000000..1234567\n--- /dev/null\n+++ b/fs/sub\n@@ -0,0 +1 @@\n+Subproject commit 1234567890123456789012345678901234567890\n", "gitlink"},
		{"make-executable", "diff --git a/fs/pipe.c b/fs/pipe.c\nold mode 100644\nnew mode 100755\n", "executable"},
		{"rename-into-scripts", "diff --git a/fs/pipe.c b/scripts/autosel.c\nsimilarity index 100%\nrename from fs/pipe.c\nrename to scripts/autosel.c\n", "scripts/autosel.c: changes code"},
		{"copy-into-scripts", "diff --git a/fs/pipe.c b/scripts/autosel.sh\nsimilarity index 100%\ncopy from fs/pipe.c\ncopy to scripts/autosel.sh\n", "scripts/autosel.sh: changes code"},
		{"rename-host-tool-away", "diff --git a/lib/gen_crc32table.c b/lib/autosel.c\nsimilarity index 100%\nrename from lib/gen_crc32table.c\nrename to lib/autosel.c\n", "lib/gen_crc32table.c: changes a host tool"},
		{"file2alias", hostTool("file2alias", "scripts/mod/file2alias.c"), "scripts/mod/file2alias.c"},
		{"mod-devicetable-header", plainAdd(t, tree, "include/linux/mod_devicetable.h", "#define AUTOSEL 1"), "include/linux/mod_devicetable.h: changes a host tool"},
		{"mkpiggy", hostTool("mkpiggy", "arch/x86/boot/compressed/mkpiggy.c"), "arch/x86/boot/compressed/mkpiggy.c: changes a host tool"},
		{"mkcpustr", hostTool("mkcpustr", "arch/x86/boot/mkcpustr.c"), "arch/x86/boot/mkcpustr.c: changes a host tool"},
		{"vdso2c", hostTool("vdso2c", "arch/x86/entry/vdso/vdso2c.c"), "arch/x86/entry/vdso/vdso2c.c: changes a host tool"},
		{"extract-cert", hostTool("extract-cert", "certs/extract-cert.c"), "certs/extract-cert.c: changes a host tool"},
		{"gen-crc32table", hostTool("gen-crc32table", "lib/gen_crc32table.c"), "lib/gen_crc32table.c: changes a host tool"},
		{"crc32poly-header", plainAdd(t, tree, "include/linux/crc32poly.h", "#define AUTOSEL 1"), "include/linux/crc32poly.h: changes a host tool"},
		{"absolute-include", plainAdd(t, tree, "fs/pipe.c", `#include "/etc/passwd"`), "absolute host path"},
		{"dotdot-include", plainAdd(t, tree, "fs/pipe.c", `#include "../../../../../../etc/passwd"`), "leaves the tree"},
		{"dotdot-angle-include", plainAdd(t, tree, "fs/pipe.c", `#include <../../etc/shadow>`), "leaves the tree"},
		{"incbin", plainAdd(t, tree, "fs/pipe.c", `asm(".incbin \"/etc/shadow\"");`), ".incbin"},
		{"asm-include", plainAdd(t, tree, "arch/x86/kernel/head_64.S", `.include "/etc/passwd"`), "absolute host path"},
		{"dot-git", "diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+touch " + markerPath("dot-git") + "\n", ""},
		{"binary", "diff --git a/fs/blob.bin b/fs/blob.bin\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\nGIT binary patch\nliteral 4\nLcmZQzWMT#Y01f~L\n\nliteral 0\nHcmV?d00001\n\n", "binary patch"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			os.Remove(markerPath(row.name))
			work := t.TempDir()
			opts := defaultOptions(t, work)
			// The guard alone first: a row it lets through must not go on
			// to a kernel build here.
			pre, err := opts.Guard.Check(context.Background(), tree, "base", []patchguard.Patch{{Name: row.name, Diff: []byte(row.patch)}})
			if err != nil || len(pre) == 0 {
				t.Fatalf("not refused (%v)", err)
			}
			b := newBuilder(opts)
			res, err := b.Build(context.Background(), &Request{Tree: tree, Ref: "base", Label: "patched",
				Patches: []Patch{{Name: row.name + ".patch", Diff: []byte(row.patch)}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var reasons []string
			for _, r := range res.Refusals {
				reasons = append(reasons, r.Error())
			}
			joined := strings.Join(reasons, "\n")
			if res.Status != BuildRefused || !strings.Contains(joined, row.want) {
				t.Fatalf("status %s, refusals:\n%s\nwant one containing %q", res.Status, joined, row.want)
			}
			if _, err := os.Stat(filepath.Join(work, "src")); err == nil {
				t.Error("a worktree was checked out for a refused patch")
			}
			if _, err := os.Stat(markerPath(row.name)); err == nil {
				t.Errorf("marker %s appeared", markerPath(row.name))
			}
		})
	}
	// The shared tree is untouched (the guard works in a scratch index).
	if out := testtree.Git(t, tree, "status", "--porcelain", "--untracked-files=no"); out != "" {
		t.Errorf("shared tree changed: %s", out)
	}
}

// TestHostileAccepted: ordinary patches near the guarded code still pass
// (an unchanged .incbin line in a file the patch edits, relative includes
// inside the tree).
func TestHostileAccepted(t *testing.T) {
	tree := testkernel.Dir(t)
	g := defaultOptions(t, t.TempDir()).Guard
	for name, patch := range map[string]string{
		"configs.c keeps its .incbin": plainAdd(t, tree, "kernel/configs.c", "/* a comment */"),
		"relative include":            plainAdd(t, tree, "fs/pipe.c", `#include "internal.h"`, `#include "../mm/internal.h"`),
		"plain header":                plainAdd(t, tree, "include/linux/pipe_fs_i.h", "/* ok */"),
	} {
		refusals, err := g.Check(context.Background(), tree, "base", []patchguard.Patch{{Name: name, Diff: []byte(patch)}})
		if err != nil || len(refusals) > 0 {
			t.Errorf("%s: refused: %v %v", name, err, refusals)
		}
	}
}

// TestIntegrationHostileBuilds: attacks that reach the build on purpose
// (the guard's globs switched off, or a computed #include the guard
// cannot see) are contained by the sandbox and the build-log filter.
func TestIntegrationHostileBuilds(t *testing.T) {
	r, tree := needIntegration(t)
	secret := "hunter2-" + fmt.Sprint(os.Getpid())
	t.Setenv("AUTOSEL_BOT_WATCH_SMTP_PASSWORD", secret)
	t.Setenv("GITHUB_TOKEN", "ghp_"+secret)
	opts := r.opts
	// Only the derived host tools and content checks: Makefiles may change.
	g := patchguard.New(nil, nil)
	opts.Guard = &g
	b := newBuilder(opts)
	p, err := b.pathsFor(tree)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(opts.WorkDir, "autosel-hostile-outside")
	rows := []struct {
		name  string
		patch string
		check func(t *testing.T, res *BuildResult)
	}{
		{"makefile-in-sandbox", plainAdd(t, tree, "fs/Makefile",
			"$(shell touch "+markerPath("makefile-in-sandbox")+" "+outside+" $(srctree)/../autosel-hostile-src-parent)",
			// A patched build runs in a throwaway copy of the build dir,
			// removed when it ends (isolate.go): the payload reports what it
			// saw in the build log, which stays ($(shell) output on one line).
			"$(warning autosel-hostile-env: $(shell env))",
			"$(warning autosel-hostile-passwd-lines: $(shell wc -l < /etc/passwd))",
			"$(warning autosel-hostile-root: $(shell ls /))"),
			func(t *testing.T, res *BuildResult) {
				if res.Status != BuildOK {
					t.Fatalf("build %s: %v", res.Status, res.Errors)
				}
				log, err := os.ReadFile(res.Log)
				if err != nil {
					t.Fatal(err)
				}
				env, ok := payloadLine(string(log), "autosel-hostile-env")
				if !ok {
					t.Fatalf("the Makefile did not run in the build (no payload line in %s)", res.Log)
				}
				if strings.Contains(env, secret) || strings.Contains(env, "AUTOSEL_BOT_") {
					t.Errorf("the bot's secret reached the build:\n%s", env)
				}
				if !strings.Contains(" "+env+" ", " HOME="+p.build+" ") {
					t.Errorf("HOME is not the build dir:\n%s", env)
				}
				if n, _ := payloadLine(string(log), "autosel-hostile-passwd-lines"); strings.TrimSpace(n) != "2" {
					t.Errorf("the build saw the host's accounts: /etc/passwd has %q lines", n)
				}
				root, _ := payloadLine(string(log), "autosel-hostile-root")
				for _, hidden := range []string{"root", "home", "work", "boot"} {
					if slices.Contains(strings.Fields(root), hidden) {
						t.Errorf("/%s is visible in the sandbox: %s", hidden, root)
					}
				}
				for _, m := range []string{outside, filepath.Join(filepath.Dir(p.worktree), "autosel-hostile-src-parent")} {
					if _, err := os.Stat(m); err == nil {
						t.Errorf("marker %s appeared outside the build area", m)
					}
				}
			}},
		{"host-file-in-compiler-output", plainAdd(t, tree, "fs/pipe.c",
			"#define AUTOSEL_HOSTILE_FILE \"/etc/passwd\"", "#include AUTOSEL_HOSTILE_FILE"),
			func(t *testing.T, res *BuildResult) {
				if res.Status != BuildFailed {
					t.Fatalf("build %s, want failed", res.Status)
				}
				joined := strings.Join(res.Errors, "\n")
				host, _ := os.ReadFile("/etc/passwd")
				first := strings.SplitN(string(host), "\n", 2)[0]
				for _, bad := range []string{"root:x", first, "/etc/passwd:", "../"} {
					if strings.Contains(joined, bad) {
						t.Errorf("build errors quote %q:\n%s", bad, joined)
					}
				}
				log, _ := os.ReadFile(res.Log)
				if !strings.Contains(string(log), "/etc/passwd") {
					t.Errorf("the build did not try the include (log lacks /etc/passwd)")
				}
			}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			os.Remove(markerPath(row.name))
			res, err := b.Build(testContext(t), &Request{Tree: tree, Ref: "base", Label: "patched",
				Patches: []Patch{{Name: row.name + ".patch", Diff: []byte(row.patch)}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s in %s, errors %q", row.name, res.Status, res.Duration.Round(time.Second), res.Errors)
			row.check(t, res)
			if _, err := os.Stat(markerPath(row.name)); err == nil {
				os.Remove(markerPath(row.name))
				t.Errorf("marker %s appeared on the host", markerPath(row.name))
			}
		})
	}
}

// payloadLine returns what a hostile Makefile's $(warning name: ...)
// printed in a build log.
func payloadLine(log, name string) (string, bool) {
	for _, l := range strings.Split(log, "\n") {
		if _, rest, ok := strings.Cut(l, name+": "); ok {
			return rest, true
		}
	}
	return "", false
}

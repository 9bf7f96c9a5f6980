package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/ccachecfg"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// treeHash hashes every file under dir (names and contents).
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		fmt.Fprintf(h, "%s %d\n", p, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestHostileCCache replays issue 37 point 1 with the real ccache and
// gcc in the build sandbox: a patched build tries to plant a
// prefix_command in the ccache configuration and to overwrite the shared
// cache. Both fail or stay private, and a later build of the original
// source gets the original object from the shared cache.
func TestHostileCCache(t *testing.T) {
	for _, tool := range []string{"ccache", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	sb := sandbox.New(sandbox.Options{}, nil)
	if mode, err := sb.Mode(context.Background()); mode != "bwrap" {
		t.Skipf("no bwrap: %v", err)
	}
	cd, src := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.c"), []byte("int f(void) { return 42; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(patched bool, script string) string {
		t.Helper()
		cs, err := ccachecfg.For(cd, "1G", patched)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Cleanup()
		var out bytes.Buffer
		err = sb.Run(context.Background(), sandbox.Spec{
			Args: []string{"sh", "-c", script}, Dir: src, Writable: append([]string{src}, cs.Writable...), ReadOnly: cs.ReadOnly,
			Home: src, Env: cs.Env, Stdout: &out, Stderr: &out,
		})
		if err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		return out.String()
	}
	build(false, "ccache gcc -c a.c -o base.o")
	base, _ := os.ReadFile(filepath.Join(src, "base.o"))
	shared := filepath.Join(cd, "shared")
	before := treeHash(t, shared)
	attack := `
printf 'prefix_command = /bin/false\n' > "$CCACHE_DIR/ccache.conf"
printf 'prefix_command = /bin/false\n' > "$CCACHE_CONFIGPATH" 2>/dev/null && echo CONF-WRITTEN
for f in $(find ` + shared + ` -type f); do echo poison 2>/dev/null > "$f" && echo SHARED-WRITTEN; done
echo x 2>/dev/null > ` + shared + `/planted && echo SHARED-WRITTEN
ccache gcc -c a.c -o p.o && echo COMPILED
`
	out := build(true, attack)
	if strings.Contains(out, "WRITTEN") || !strings.Contains(out, "COMPILED") {
		t.Fatalf("patched build wrote the shared cache or configuration:\n%s", out)
	}
	if after := treeHash(t, shared); after != before {
		t.Fatal("the shared cache changed during a patched build")
	}
	// The next (innocent) patched build gets the original object.
	build(true, "ccache gcc -c a.c -o again.o")
	again, _ := os.ReadFile(filepath.Join(src, "again.o"))
	if len(base) == 0 || !bytes.Equal(base, again) {
		t.Fatal("a later build did not get the original object")
	}
	if m, _ := filepath.Glob(filepath.Join(cd, "private-*")); len(m) != 0 {
		t.Errorf("private caches left behind: %v", m)
	}
}

// TestThrowawayBuildDir replays issue 37 point 2: a patched build replaces
// scripts/basic/fixdep in its build dir and plants an ignored file in the
// worktree; the baseline build dir and the next worktree are untouched.
func TestThrowawayBuildDir(t *testing.T) {
	base := filepath.Join(t.TempDir(), "build")
	fixdep := filepath.Join(base, "scripts", "basic", "fixdep")
	if err := os.MkdirAll(filepath.Dir(fixdep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fixdep, []byte("genuine"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, cleanup, err := throwawayBuildDir(context.Background(), base, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "scripts", "basic", "fixdep")); string(b) != "genuine" {
		t.Fatalf("copy lacks the baseline's files: %q", b)
	}
	if err := os.WriteFile(filepath.Join(dir, "scripts", "basic", "fixdep"), []byte("evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cleanup()
	if b, _ := os.ReadFile(fixdep); string(b) != "genuine" {
		t.Fatalf("baseline fixdep is %q after a patched build", b)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("throwaway build dir left: %v", err)
	}
	wt := testtree.Repo(t, nil)
	os.WriteFile(filepath.Join(wt, ".gitignore"), []byte("*.o\n"), 0o644)
	os.WriteFile(filepath.Join(wt, "planted.o"), []byte("evil"), 0o644)
	if err := cleanWorktree(context.Background(), wt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wt, "planted.o")); !os.IsNotExist(err) {
		t.Error("an ignored file planted in the worktree survived")
	}
}

// TestPatchedBuildSpec: a patched build's throwaway copy is mounted at
// the baseline build dir's path (make O= and HOME name that path), the
// baseline itself is neither writable nor bound, and the worktree is
// read-only.
func TestPatchedBuildSpec(t *testing.T) {
	b := newBuilder(Options{}.WithDefaults())
	p := paths{worktree: "/w/src/k", build: "/w/build/k.patched-1", buildAt: "/w/build/k"}
	spec := b.spec(p, nil, nil, "make", "O="+p.objtree())
	if len(spec.Mounts) != 1 || spec.Mounts[0] != (sandbox.Mount{Host: "/w/build/k.patched-1", At: "/w/build/k"}) {
		t.Errorf("mounts %+v", spec.Mounts)
	}
	if len(spec.Writable) != 0 || spec.Home != "/w/build/k" || spec.Args[1] != "O=/w/build/k" {
		t.Errorf("writable %v home %s args %v", spec.Writable, spec.Home, spec.Args)
	}
	if len(spec.ReadOnly) == 0 || spec.ReadOnly[0] != "/w/src/k" {
		t.Errorf("worktree not read-only: %v", spec.ReadOnly)
	}
	base := b.spec(paths{worktree: "/w/src/k", build: "/w/build/k"}, nil, nil, "make")
	if len(base.Mounts) != 0 || len(base.Writable) != 1 || base.Writable[0] != "/w/build/k" {
		t.Errorf("baseline spec: writable %v mounts %v", base.Writable, base.Mounts)
	}
}

// TestConfigureReadOnlyWorktree: configuring a kernel (tinyconfig,
// merge_config.sh, olddefconfig) works with the worktree read-only to the
// build, and leaves nothing in it.
func TestConfigureReadOnlyWorktree(t *testing.T) {
	r, tree := needIntegration(t)
	b := newBuilder(r.opts)
	p, err := b.pathsFor(tree)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := flock.Lock(testContext(t), p.worktree+".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := prepareWorktree(testContext(t), tree, p.worktree, "base"); err != nil {
		t.Fatal(err)
	}
	p.build = t.TempDir()
	frags, err := b.fragments()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := b.configure(testContext(t), p, frags, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if _, err := os.Stat(filepath.Join(p.build, ".config")); err != nil {
		t.Fatal(err)
	}
	if out := testtree.Git(t, p.worktree, "status", "--porcelain", "--ignored"); len(out) != 0 {
		t.Errorf("the worktree changed:\n%s", out)
	}
}

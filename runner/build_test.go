package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/ccachecfg"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// TestBuildApplyFailedAndWorktreeReuse: a patch that does not apply is a
// result; the persistent worktree is created once, reused, and reset
// between requests (the tree's own checkout is never touched).
func TestBuildApplyFailedAndWorktreeReuse(t *testing.T) {
	tree := testtree.Repo(t, map[string]string{"a.c": "int a;\n"})
	b := newBuilder(Options{WorkDir: t.TempDir(), Guard: &Guard{Deny: []string{"**/Makefile*"}}}.WithDefaults())
	bad := Patch{Name: "bad.patch", Diff: []byte("--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-int nothere;\n+int b;\n")}
	res, err := b.Build(context.Background(), &Request{Tree: tree, Ref: "HEAD", Patches: []Patch{bad}, Label: "patched"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != BuildApplyFailed || !strings.Contains(strings.Join(res.Errors, "\n"), "bad.patch does not apply") {
		t.Fatalf("%+v", res)
	}
	p, _ := b.pathsFor(tree)
	// Dirty the worktree as a previous patch would; the next request resets it.
	os.WriteFile(filepath.Join(p.worktree, "a.c"), []byte("garbage\n"), 0o644)
	os.WriteFile(filepath.Join(p.worktree, "new.c"), []byte("new\n"), 0o644)
	res, err = b.Build(context.Background(), &Request{Tree: tree, Ref: "HEAD", Patches: []Patch{bad}, Label: "patched"}, nil)
	if err != nil || res.Status != BuildApplyFailed {
		t.Fatalf("%v %+v", err, res)
	}
	if got, _ := os.ReadFile(filepath.Join(p.worktree, "a.c")); string(got) != "int a;\n" {
		t.Errorf("worktree not reset: %q", got)
	}
	if _, err := os.Stat(filepath.Join(p.worktree, "new.c")); err == nil {
		t.Errorf("untracked file survived")
	}
	if got, _ := os.ReadFile(filepath.Join(tree, "a.c")); string(got) != "int a;\n" {
		t.Errorf("the tree's own checkout changed: %q", got)
	}
	// Refused before anything is checked out.
	res, err = b.Build(context.Background(), &Request{Tree: tree, Ref: "HEAD", Label: "patched",
		Patches: []Patch{{Name: "mk", Diff: []byte("--- a/Makefile\n+++ b/Makefile\n@@ -0,0 +1 @@\n+x\n")}}}, nil)
	if err != nil || res.Status != BuildRefused || res.Refusals[0].Patch != "mk" {
		t.Fatalf("%v %+v", err, res)
	}
	// A bad ref is an error, not a result.
	if _, err := b.Build(context.Background(), &Request{Tree: tree, Ref: "nope", Label: "patched"}, nil); err == nil {
		t.Fatal("bad ref accepted")
	}
}

// TestCCacheOff: runner.ccache_dir: off survives every WithDefaults pass
// (New, NewLocal) and builds with plain gcc, no CCACHE_DIR.
func TestCCacheOff(t *testing.T) {
	custom := filepath.Join(t.TempDir(), "cc")
	for _, tt := range []struct {
		dir    string
		cc     string
		hasDir bool
	}{
		{"off", "gcc", false},
		{"", "ccache gcc", true},
		{custom, "ccache gcc", true},
	} {
		opts := Options{WorkDir: t.TempDir(), CCacheDir: tt.dir}
		l := New(opts, nil).Backend().(*Local)
		b := l.b
		cache, err := ccachecfg.For(b.opts.ccacheDir(), "1G", false)
		if err != nil {
			t.Fatal(err)
		}
		env := strings.Join(b.env(paths{cache: cache}), "\n") + "\n"
		if b.ccString() != tt.cc || strings.Contains(env, "CCACHE_DIR=") != tt.hasDir {
			t.Errorf("ccache_dir %q: CC=%q env:\n%s", tt.dir, b.ccString(), env)
		}
		if tt.dir == custom && !strings.Contains(env, "CCACHE_DIR="+custom+"/baseline\n") {
			t.Errorf("ccache_dir not used: %s", env)
		}
	}
}

package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWorktrees(t *testing.T) {
	g, c1, c2 := testRepo(t)
	ctx := context.Background()
	wt := filepath.Join(t.TempDir(), "src", "tree")
	list := func() int {
		out, err := g.Run(ctx, "worktree", "list", "--porcelain")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(out, "worktree ")
	}
	if err := g.PrepareWorktree(ctx, wt, c1); err != nil {
		t.Fatal(err)
	}
	bStat, err := os.Stat(filepath.Join(wt, "b.c"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	steps := []struct {
		name   string
		mess   func() // what a previous use left behind
		commit string
		wantA  string
	}{
		{name: "same commit", commit: c1, wantA: "int a;\n"},
		{name: "dirty files", commit: c1, wantA: "int a;\n", mess: func() {
			write(t, wt, "a.c", "garbage\n")
			write(t, wt, "new.c", "untracked\n")
			os.MkdirAll(filepath.Join(wt, "newdir"), 0o755)
			write(t, filepath.Join(wt, "newdir"), "x.c", "untracked\n")
		}},
		{name: "dirty index", commit: c2, wantA: "int a = 1;\n", mess: func() {
			if _, err := g.WithDir(wt).Run(ctx, "rm", "-q", "--cached", "a.c"); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "back", commit: c1, wantA: "int a;\n"},
		{name: "broken worktree", commit: c2, wantA: "int a = 1;\n", mess: func() {
			write(t, wt, ".git", "gitdir: /nonexistent\n")
		}},
	}
	for _, s := range steps {
		if s.mess != nil {
			s.mess()
		}
		if err := g.PrepareWorktree(ctx, wt, s.commit); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := read(t, wt, "a.c"); got != s.wantA {
			t.Errorf("%s: a.c = %q, want %q", s.name, got, s.wantA)
		}
		for _, p := range []string{"new.c", "newdir"} {
			if _, err := os.Stat(filepath.Join(wt, p)); err == nil {
				t.Errorf("%s: %s survived", s.name, p)
			}
		}
		if st, err := g.WithDir(wt).Run(ctx, "status", "--porcelain"); err != nil || st != "" {
			t.Errorf("%s: status %q, %v", s.name, st, err)
		}
		if head, _ := g.WithDir(wt).RevParse(ctx, "HEAD"); head != s.commit {
			t.Errorf("%s: HEAD %s, want %s", s.name, head, s.commit)
		}
		if n := list(); n != 2 {
			t.Errorf("%s: %d worktrees", s.name, n)
		}
		if s.name == "back" {
			// Up to here the worktree was only reset: b.c, the same in
			// every commit, was never written again.
			if fi, err := os.Stat(filepath.Join(wt, "b.c")); err != nil || !fi.ModTime().Equal(bStat.ModTime()) {
				t.Errorf("b.c rewritten by a reset")
			}
		}
	}
	if read(t, g.Dir(), "a.c") != "int a = 1;\n" {
		t.Errorf("the repository's own checkout changed")
	}
	if err := g.RemoveWorktree(ctx, wt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); err == nil || list() != 1 {
		t.Errorf("worktree not removed")
	}
	if err := g.RemoveWorktree(ctx, wt); err != nil {
		t.Errorf("removing a removed worktree: %v", err)
	}
}

func TestAddWorktreeNoCheckout(t *testing.T) {
	g, c1, _ := testRepo(t)
	ctx := context.Background()
	wt := filepath.Join(t.TempDir(), "wt")
	if err := g.AddWorktree(ctx, wt, c1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wt, "a.c")); err == nil {
		t.Errorf("files checked out")
	}
	if err := g.AddWorktree(ctx, filepath.Join(t.TempDir(), "x"), "no-such-commit", false); err == nil {
		t.Errorf("worktree of a missing commit")
	}
}

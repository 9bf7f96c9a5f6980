package gitsrc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/series"
)

// TestCommitTree: files come from the commit's objects, not from the
// working directory.
func TestCommitTree(t *testing.T) {
	dir := makeRepo(t)
	// The working directory differs from every commit.
	os.WriteFile(filepath.Join(dir, "lib/x.c"), []byte("dirty\n"), 0o644)
	ctx := context.Background()
	base, err := NewCommitTree(ctx, dir, "base")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want, err string
	}{
		{"lib/x.c", "\tudelay(1);", ""},
		{"lib/y.h", "", "file does not exist"},
		{"lib", "", "not a regular file"},
		{"../etc/passwd", "", "path"},
	}
	for _, tc := range tests {
		b, err := base.ReadFile(tc.path)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.path, err, tc.err)
			}
			continue
		}
		if err != nil || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %q %v", tc.path, b, err)
		}
	}
	if _, err := base.ReadFile("lib/y.h"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v does not wrap fs.ErrNotExist", err)
	}
	if !strings.HasPrefix(base.Root(), dir+"@") || len(base.Commit()) != 40 {
		t.Errorf("root %q commit %q", base.Root(), base.Commit())
	}
	if _, err := NewCommitTree(ctx, dir, "nosuchrev"); err == nil {
		t.Error("a missing revision gave a tree")
	}
	if b, err := RangeBase(ctx, dir, "base..master"); err != nil || b != base.Commit() {
		t.Errorf("range base %q %v, want %s", b, err, base.Commit())
	}
}

// TestRangeOnItsBase: the patches of a range apply cleanly onto its base
// commit read from git, whatever is checked out, and the series ID is the
// same on every run.
func TestRangeOnItsBase(t *testing.T) {
	dir := makeRepo(t)
	ctx := context.Background()
	var ids []string
	for run := 0; run < 2; run++ {
		msgs, err := Range(ctx, dir, "base..master")
		if err != nil {
			t.Fatal(err)
		}
		ss := series.Assemble(msgs, series.Options{})
		if len(ss) != 1 {
			t.Fatalf("%d series", len(ss))
		}
		ids = append(ids, ss[0].ID)
		if !strings.HasSuffix(ss[0].ID, "@"+IDDomain) {
			t.Errorf("series ID %q", ss[0].ID)
		}
		base, err := NewCommitTree(ctx, dir, "base")
		if err != nil {
			t.Fatal(err)
		}
		var tree diffcheck.Tree = base
		for _, p := range ss[0].Patches {
			cs, err := diffcheck.Parse(p.Msg.Diff)
			if err != nil {
				t.Fatal(err)
			}
			if err := diffcheck.ApplyTree(cs, tree); err != nil || cs.ApplyError != "" {
				t.Fatalf("patch %d: %v %s", p.Number, err, cs.ApplyError)
			}
			tree = cs.Tree
		}
		// On the checked-out master the same patches do not apply.
		cs, _ := diffcheck.Parse(ss[0].Patches[0].Msg.Diff)
		diffcheck.ApplyTree(cs, diffcheck.DirTree(dir))
		if cs.ApplyError == "" {
			t.Error("the first patch applies onto the tip it produced")
		}
	}
	if ids[0] != ids[1] {
		t.Errorf("series ID changed between runs: %s, %s", ids[0], ids[1])
	}
}

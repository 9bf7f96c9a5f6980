package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// TestCheckPatchAlreadyInTree: a maintainer checks the format-patch of
// their branch on the same branch (README). The patches are already in the
// tree: each is analysed against the tree with it reversed (the sleep under
// the spinlock is found, as against the parent) and every format says so.
func TestCheckPatchAlreadyInTree(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := gitRepo(t)
	pdir := t.TempDir()
	testtree.Git(t, dir, "format-patch", "-q", "-o", pdir, "base..master")
	files, _ := filepath.Glob(filepath.Join(pdir, "*.patch"))
	if len(files) != 2 {
		t.Fatalf("%d patches", len(files))
	}
	_, out, stderr := runCLI(t, "", append([]string{"check", "--format", "json", "--tree", dir}, files...)...)
	rs := decodeReports(t, out)
	if len(rs) != 1 {
		t.Fatalf("%d reports: %s", len(rs), stderr)
	}
	found := false
	for _, p := range rs[0].Patches {
		if !strings.Contains(p.AlreadyApplied, "already in") {
			t.Errorf("patch %d: already_applied %q", p.Number, p.AlreadyApplied)
		}
		for _, n := range p.Notes {
			if strings.Contains(n, "does not apply cleanly") {
				t.Errorf("patch %d: %s", p.Number, n)
			}
		}
		for _, f := range p.Findings {
			found = found || f.Rule == "sleep-in-atomic"
		}
	}
	if !found {
		t.Errorf("no sleep-in-atomic finding against the tree with the patches reversed: %s", out)
	}
	for format, want := range map[string]string{
		"text":  "already in",
		"email": "already in",
		"terse": ": note: already-applied: the patch is already in",
		"sarif": "already applied: the patch is already in",
	} {
		_, out, stderr := runCLI(t, "", append([]string{"check", "--format", format, "--tree", dir}, files...)...)
		if n := strings.Count(out, want); n < 2 {
			t.Errorf("--format %s says %d times %q, want once per patch (2):\n%s%s", format, n, want, out, stderr)
		}
	}
}

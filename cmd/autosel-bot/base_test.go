package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// gitRepo makes a repository with a base commit (tag "base") and two
// commits on top, checked out at the tip.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		return testtree.Git(t, dir, args...)
	}
	write := func(content string) {
		t.Helper()
		os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "lib/x.c"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "master")
	write("static DEFINE_SPINLOCK(l);\n\nstatic void a(void)\n{\n\tudelay(1);\n}\n\nvoid b(void)\n{\n\ta();\n}\n")
	run("add", ".")
	run("commit", "-q", "-m", "base")
	run("tag", "base")
	write("static DEFINE_SPINLOCK(l);\n\nstatic void a(void)\n{\n\tmsleep(1);\n}\n\nvoid b(void)\n{\n\ta();\n}\n")
	run("commit", "-q", "-am", "lib: sleep in a()")
	write("static DEFINE_SPINLOCK(l);\n\nstatic void a(void)\n{\n\tmsleep(1);\n}\n\nvoid b(void)\n{\n\tspin_lock(&l);\n\ta();\n\tspin_unlock(&l);\n}\n")
	run("commit", "-q", "-am", "lib: lock in b()")
	return dir
}

// TestCheckRangeOnBase: --repo X --range A..B --tree X with X checked out
// at B analyses the range against A from git objects (the patches apply,
// the sleep under the spinlock is found), with the same series ID on every
// run; a format-patch --base file is analysed against its base-commit.
func TestCheckRangeOnBase(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := gitRepo(t)
	var ids []string
	for run := 0; run < 2; run++ {
		_, out, stderr := runCLI(t, "", "check", "--format", "json", "--repo", dir, "--range", "base..master", "--tree", dir)
		rs := decodeReports(t, out)
		if len(rs) != 1 {
			t.Fatalf("%d reports: %s", len(rs), stderr)
		}
		r := rs[0]
		ids = append(ids, r.SeriesID)
		if !strings.Contains(strings.Join(r.Notes, "\n"), "analysed against ") {
			t.Errorf("no base note in %q", r.Notes)
		}
		found := false
		for _, p := range r.Patches {
			for _, n := range p.Notes {
				if strings.Contains(n, "does not apply") {
					t.Errorf("patch %d: %s", p.Number, n)
				}
			}
			for _, f := range p.Findings {
				if f.Rule == "sleep-in-atomic" {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("no sleep-in-atomic finding: %s", out)
		}
	}
	if ids[0] != ids[1] {
		t.Errorf("series ID changed: %s vs %s", ids[0], ids[1])
	}

	// git format-patch --base: the base-commit is used.
	pdir := t.TempDir()
	testtree.Git(t, dir, "format-patch", "-q", "--base=base", "-o", pdir, "base..master")
	files, _ := filepath.Glob(filepath.Join(pdir, "*.patch"))
	_, out, stderr := runCLI(t, "", append([]string{"check", "--format", "json", "--tree", dir}, files...)...)
	rs := decodeReports(t, out)
	if len(rs) != 1 || !strings.Contains(strings.Join(rs[0].Notes, "\n"), "analysed against base-commit") {
		t.Fatalf("format-patch --base series not analysed on its base: %s %s", out, stderr)
	}
	for _, p := range rs[0].Patches {
		for _, n := range p.Notes {
			if strings.Contains(n, "does not apply") {
				t.Errorf("patch %d: %s", p.Number, n)
			}
		}
	}
}

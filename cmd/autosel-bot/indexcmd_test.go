package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// TestIndexCommands builds the index of two small trees with "index
// build", lists them with "index status", and removes one and then all
// with "index prune".
func TestIndexCommands(t *testing.T) {
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	cache := filepath.Join(cacheHome, "autosel-bot")
	a := testtree.Dir(t, map[string]string{"kernel/a.c": "void a(void) { b(); }\nvoid b(void) {}\n"})
	b := testtree.Dir(t, map[string]string{"b.c": "int y(void) { return 0; }\n"})
	steps := []struct {
		args     []string
		code     int
		want     []string // in stdout (stderr for a failure)
		unwanted []string
	}{
		{[]string{"index", "status"}, 0, []string{"cache " + cache + ": 0 trees"}, nil},
		{[]string{"index", "build", "--tree", a}, 0, []string{a + ": 1 files (1 scanned, 0 cached), 2 functions"}, nil},
		{[]string{"index", "build", "--tree", a, "--summaries"}, 0, []string{"(0 scanned, 1 cached)"}, nil},
		{[]string{"index", "build", "--tree", b}, 0, []string{b + ": 1 files"}, nil},
		{[]string{"index", "status"}, 0, []string{": 2 trees", a + "\t", b + "\t", "s old", "total\t"}, nil},
		{[]string{"index", "status", "--tree", b}, 0, []string{": 1 tree\n", b + "\t"}, []string{a}},
		{[]string{"index", "prune", "--tree", a}, 0, []string{"removed " + a + " ("}, nil},
		{[]string{"index", "status"}, 0, []string{": 1 tree\n", b + "\t"}, []string{a}},
		{[]string{"index", "prune", "--tree", a}, 0, []string{"nothing cached in " + cache}, nil},
		{[]string{"index", "prune"}, 2, []string{"either --tree DIR or --all"}, nil},
		{[]string{"index", "prune", "--tree", a, "--all"}, 2, []string{"either --tree DIR or --all"}, nil},
		{[]string{"index", "build"}, 2, []string{"--tree is required"}, nil},
		{[]string{"index", "prune", "--all"}, 0, []string{"removed " + b + " ("}, nil},
		{[]string{"index", "status"}, 0, []string{": 0 trees"}, nil},
	}
	for _, st := range steps {
		code, stdout, stderr := runCLI(t, "", st.args...)
		out := stdout
		if st.code != 0 {
			out = stderr
		}
		if code != st.code {
			t.Fatalf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", st.args, code, st.code, stdout, stderr)
		}
		for _, w := range st.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", st.args, w, out)
			}
		}
		for _, w := range st.unwanted {
			if strings.Contains(out, w) {
				t.Errorf("%v: output has %q:\n%s", st.args, w, out)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "index-*")); len(left) != 0 {
		t.Errorf("left after prune --all: %v", left)
	}
}

// TestIndexCacheDisabled: with index.cache_dir "-" there is nothing to
// build, list or prune, and the error names the key.
func TestIndexCacheDisabled(t *testing.T) {
	t.Setenv("AUTOSEL_BOT_INDEX_CACHE_DIR", "-")
	for _, args := range [][]string{{"index", "status"}, {"index", "prune", "--all"}, {"index", "build", "--tree", t.TempDir()}} {
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, "index.cache_dir") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming index.cache_dir", args, code, stderr)
		}
	}
}

func TestWriteIndexStatus(t *testing.T) {
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	var b strings.Builder
	writeIndexStatus(&b, "/c", []index.CacheEntry{
		{Key: "index-1", Tree: "/src/linux", Files: []string{"x", "y"}, Size: 350 << 20, Modified: now.Add(-3 * 24 * time.Hour)},
		{Key: "index-2", Files: []string{"z"}, Size: 1500, Modified: now.Add(-90 * time.Minute)},
	}, now)
	want := "cache /c: 2 trees\n" +
		"/src/linux\t350.0 MiB\t3d old\t2 files\n" +
		"index-2 (tree not recorded)\t1.5 KiB\t1h old\t1 file\n" +
		"total\t350.0 MiB\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestIndexManPages: the index commands get man pages like every command.
func TestIndexManPages(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "", "man", "--dir", dir); code != 0 {
		t.Fatalf("man: exit %d: %s", code, stderr)
	}
	for _, p := range []string{"autosel-bot-index.1", "autosel-bot-index-build.1", "autosel-bot-index-status.1", "autosel-bot-index-prune.1"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/stageprogress"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

func TestWantProgress(t *testing.T) {
	var buf bytes.Buffer
	tests := []struct {
		setting, format string
		w               any
		want            bool
	}{
		{"auto", "text", &buf, false}, // not a terminal
		{"auto", "text", os.Stderr, isTerminal(os.Stderr)},
		{"auto", "json", os.Stderr, false},
		{"always", "json", &buf, true},
		{"never", "text", os.Stderr, false},
	}
	for _, tc := range tests {
		w := tc.w.(interface{ Write([]byte) (int, error) })
		if got := wantProgress(tc.setting, tc.format, w); got != tc.want {
			t.Errorf("wantProgress(%q, %q, %T) = %v", tc.setting, tc.format, tc.w, got)
		}
	}
}

// TestIndexingBar: the bar counts files and ends when indexing is done.
func TestIndexingBar(t *testing.T) {
	var buf bytes.Buffer
	pb := newProgressBars(&buf)
	for done := 0; done <= 1000; done += 250 {
		pb.indexing(done, 1000)
	}
	pb.wait()
	out := buf.String()
	if !strings.Contains(out, "indexing") || !strings.Contains(out, "/1000 files") {
		t.Errorf("bar output %q", out)
	}
}

// TestStageBars: each stage gets its bar after the one before; a
// repeated last call of a finished stage draws nothing more.
func TestStageBars(t *testing.T) {
	var buf bytes.Buffer
	pb := newProgressBars(&buf)
	pb.indexing(1000, 1000)
	for _, st := range []string{stageprogress.Typing, stageprogress.Summaries} {
		for done := 0; done <= 400; done += 100 {
			pb.stage(st, done, 400)
		}
	}
	n := buf.Len()
	pb.stage(stageprogress.Summaries, 400, 400)
	pb.wait()
	out := buf.String()
	for _, want := range []string{"indexing", "/1000 files", stageprogress.Typing + " ", stageprogress.Summaries + " ", "/400 files"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar output lacks %q: %q", want, out)
		}
	}
	if buf.Len() != n {
		t.Errorf("a repeated end of a finished stage drew: %q", out[n:])
	}
}

// TestIndexBuildStages: index build --summaries draws the index's second
// pass, then the rules' struct typing and summaries stages after the
// indexing (index.progress always).
func TestIndexBuildStages(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("AUTOSEL_BOT_INDEX_PROGRESS", "always")
	tree := testtree.Dir(t, map[string]string{
		"kernel/a.c": "#include <linux/spinlock.h>\nstruct s { int x; };\nvoid a(struct s *p) { spin_lock(&l); b(p); spin_unlock(&l); }\nvoid b(struct s *p) { p->x = 1; }\n",
		"fs/c.c":     "int c(void) { return 0; }\n",
	})
	code, _, stderr := runCLI(t, "", "index", "build", "--tree", tree, "--summaries")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	last := -1
	for _, want := range []string{"indexing ", stageprogress.IndexWrite + " ", stageprogress.Typing + " ", stageprogress.Summaries + " "} {
		i := strings.Index(stderr, want)
		if i < 0 {
			t.Errorf("stderr lacks the %q stage: %q", want, stderr)
			continue
		}
		if i < last {
			t.Errorf("stage %q drawn before the one before it: %q", want, stderr)
		}
		last = i
	}
	if !strings.Contains(stderr, "/2 files") {
		t.Errorf("stages do not count the tree's files: %q", stderr)
	}
}

package gitsrc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/series"
)

// makeRepo creates a throwaway repository with a base commit and three
// commits on top, and returns its directory.
func makeRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_AUTHOR_DATE", "2024-01-02T03:04:05Z")
	t.Setenv("GIT_COMMITTER_DATE", "2024-01-02T03:04:05Z")
	run := func(args ...string) string {
		t.Helper()
		return strings.TrimSpace(testtree.Git(t, dir, args...))
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "master")
	write("lib/x.c", "static void a(void)\n{\n\tudelay(1);\n}\n\nvoid b(void)\n{\n\ta();\n}\n")
	run("add", ".")
	run("commit", "-q", "-m", "base")
	run("tag", "base")
	write("lib/x.c", "static void a(void)\n{\n\tmsleep(1);\n}\n\nvoid b(void)\n{\n\ta();\n}\n")
	run("commit", "-q", "-am", "lib: sleep in a()\n\nSigned-off-by: A U Thor <author@example.org>")
	write("lib/x.c", "static void a(void)\n{\n\tmsleep(1);\n}\n\nvoid b(void)\n{\n\tspin_lock(&l);\n\ta();\n\tspin_unlock(&l);\n}\n")
	run("commit", "-q", "-am", "lib: lock in b()")
	write("lib/y.h", "int y;\n")
	run("add", "lib/y.h")
	run("commit", "-q", "-m", "lib: add y.h")
	return dir
}

func TestRange(t *testing.T) {
	dir := makeRepo(t)
	msgs, err := Range(context.Background(), dir, "base..master")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 3", len(msgs))
	}
	wantSubj := []string{"[PATCH 1/3] lib: sleep in a()", "[PATCH 2/3] lib: lock in b()", "[PATCH 3/3] lib: add y.h"}
	for i, m := range msgs {
		if m.Subject.Raw != wantSubj[i] || m.Subject.Number != i+1 || m.Subject.Total != 3 {
			t.Errorf("message %d subject %+v", i, m.Subject)
		}
		if m.Diff == "" || m.MessageID == "" {
			t.Errorf("message %d: no diff or Message-ID", i)
		}
		if _, err := diffcheck.Parse(m.Diff); err != nil {
			t.Errorf("message %d diff: %v", i, err)
		}
	}
	ss := series.Assemble(msgs, series.Options{})
	if len(ss) != 1 {
		t.Fatalf("%d series, want 1", len(ss))
	}
	s := ss[0]
	if len(s.Patches) != 3 || s.Total != 3 || s.Incomplete != "" || s.Author.Addr != "author@example.org" {
		t.Errorf("series %+v", s)
	}
	cs, err := diffcheck.Parse(s.Patches[1].Msg.Diff)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Funcs) != 1 || cs.Funcs[0].ID() != "lib/x.c:b" {
		t.Errorf("patch 2 funcs %+v", cs.Funcs)
	}
	// B defaults to HEAD.
	if msgs, err := Range(context.Background(), dir, "HEAD~1.."); err != nil || len(msgs) != 1 {
		t.Errorf("HEAD~1..: %d %v", len(msgs), err)
	}
}

func TestRangeErrors(t *testing.T) {
	dir := makeRepo(t)
	tests := map[string]string{
		"master":                "want the form A..B",
		"base...master":         "symmetric",
		"..master":              "start revision is empty",
		"--output=/tmp/x..HEAD": "looks like an option",
		"base..--all":           "looks like an option",
		"base..mas ter":         "whitespace",
		"base..nosuchbranch":    "not a commit",
		"master..master":        "no (non-merge) commits",
		"a..b..c":               "exactly one",
	}
	for rng, want := range tests {
		_, err := Range(context.Background(), dir, rng)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Range(%q) = %v, want an error containing %q", rng, err, want)
		}
	}
	if _, err := Range(context.Background(), t.TempDir(), "a..b"); err == nil {
		t.Error("range in a non-repository accepted")
	}
}

package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testRepo makes a repository with two commits: c1 adds a.c and b.c, c2
// changes a.c. It returns the repository's Git and both commit ids.
func testRepo(t *testing.T) (g *Git, c1, c2 string) {
	t.Helper()
	dir := t.TempDir()
	g = New(dir)
	ctx := context.Background()
	must := func(args ...string) string {
		t.Helper()
		out, err := g.Run(ctx, args...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	must("init", "-q", "-b", "main")
	write(t, dir, "a.c", "int a;\n")
	write(t, dir, "b.c", "int b;\n")
	must("add", ".")
	must("commit", "-q", "-m", "first")
	c1 = must("rev-parse", "HEAD")
	write(t, dir, "a.c", "int a = 1;\n")
	must("commit", "-q", "-am", "second")
	c2 = must("rev-parse", "HEAD")
	return g, c1, c2
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRevParse(t *testing.T) {
	g, c1, c2 := testRepo(t)
	ctx := context.Background()
	tests := []struct {
		rev     string
		want    string
		wantErr bool
	}{
		{rev: "HEAD", want: c2},
		{rev: "main", want: c2},
		{rev: "HEAD~1", want: c1},
		{rev: c1[:10], want: c1},
		{rev: "no-such-ref", wantErr: true},
		{rev: "--all", wantErr: true}, // an option is never a revision
		{rev: c1 + ":a.c", wantErr: true},
	}
	for _, tt := range tests {
		got, err := g.RevParse(ctx, tt.rev)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("RevParse(%q) = %q, %v; want %q (error %v)", tt.rev, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestOKAndIsAncestor(t *testing.T) {
	g, c1, c2 := testRepo(t)
	ctx := context.Background()
	tests := []struct {
		a, b    string
		want    bool
		wantErr bool
	}{
		{a: c1, b: c2, want: true},
		{a: c2, b: c1, want: false},
		{a: c2, b: c2, want: true},
		{a: "nope", b: c2, wantErr: true}, // status 128, not 1
	}
	for _, tt := range tests {
		got, err := g.IsAncestor(ctx, tt.a, tt.b)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("IsAncestor(%.8s, %.8s) = %v, %v; want %v (error %v)", tt.a, tt.b, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestErrorCarriesStderr(t *testing.T) {
	g, _, _ := testRepo(t)
	_, err := g.Run(context.Background(), "show", "no-such-rev")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v, want *Error", err, err)
	}
	if e.ExitCode() != 128 || e.Dir != g.Dir() || strings.Join(e.Args, " ") != "show no-such-rev" {
		t.Errorf("error %+v", e)
	}
	if !strings.Contains(e.Stderr, "no-such-rev") || !strings.Contains(err.Error(), "git show no-such-rev: exit status 128: fatal:") {
		t.Errorf("message %q, stderr %q", err.Error(), e.Stderr)
	}
	if Stderr(err) != strings.TrimSpace(e.Stderr) {
		t.Errorf("Stderr() = %q", Stderr(err))
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Errorf("the exit error is not reachable with errors.As")
	}
	if Stderr(errors.New("plain")) != "plain" {
		t.Errorf("Stderr of a non-git error")
	}
}

func TestCancelled(t *testing.T) {
	g, _, _ := testRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := g.Run(ctx, "log")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestConfigAndEnvAreIsolated(t *testing.T) {
	g, _, _ := testRepo(t)
	ctx := context.Background()
	// The user's configuration does not leak in; With* add settings to a copy.
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	os.WriteFile(os.Getenv("GIT_CONFIG_GLOBAL"), []byte("[core]\n\tabbrev = 20\n[color]\n\tui = always\n"), 0o644)
	tests := []struct {
		g    *Git
		args []string
		want string
	}{
		{g: g, args: []string{"config", "color.ui"}, want: "false"},
		{g: g.WithConfig("color.ui=auto"), args: []string{"config", "color.ui"}, want: "auto"},
		{g: g.WithEnv("GIT_AUTHOR_NAME=someone"), args: []string{"var", "GIT_AUTHOR_IDENT"}, want: "someone <autosel-bot@localhost>"},
		{g: g, args: []string{"var", "GIT_COMMITTER_IDENT"}, want: "autosel-bot <autosel-bot@localhost>"},
	}
	for _, tt := range tests {
		out, err := tt.g.Run(ctx, tt.args...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(strings.TrimSpace(out), tt.want) {
			t.Errorf("git %v = %q, want prefix %q", tt.args, out, tt.want)
		}
	}
	if len(g.config) != 0 || len(g.env) != 0 {
		t.Errorf("With* changed the original: %+v", g)
	}
}

func TestDiffAndApply(t *testing.T) {
	g, c1, c2 := testRepo(t)
	ctx := context.Background()
	diff, err := g.Diff(ctx, c1, c2)
	if err != nil || !strings.Contains(string(diff), "+int a = 1;") {
		t.Fatalf("diff %q, %v", diff, err)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	if err := g.AddWorktree(ctx, wt, c1, true); err != nil {
		t.Fatal(err)
	}
	w := g.WithDir(wt)
	tests := []struct {
		name    string
		diff    []byte
		flags   []string
		wantErr string
		wantA   string
	}{
		{name: "check only", diff: diff, flags: []string{"--check"}, wantA: "int a;\n"},
		{name: "index only", diff: diff, flags: []string{"--cached"}, wantA: "int a;\n"},
		{name: "does not apply", diff: []byte("--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-int nothere;\n+int x;\n"), wantErr: "patch does not apply", wantA: "int a;\n"},
		{name: "applies", diff: diff, wantA: "int a = 1;\n"},
	}
	for _, tt := range tests {
		err := w.Apply(ctx, tt.diff, tt.flags...)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(Stderr(err), tt.wantErr)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
		if got := read(t, wt, "a.c"); got != tt.wantA {
			t.Errorf("%s: a.c = %q, want %q", tt.name, got, tt.wantA)
		}
	}
}

func TestBlame(t *testing.T) {
	g, c1, c2 := testRepo(t)
	ctx := context.Background()
	write(t, g.Dir(), "a.c", "int a = 1;\nint a2;\n")
	if _, err := g.Run(ctx, "commit", "-q", "-am", "third"); err != nil {
		t.Fatal(err)
	}
	c3, _ := g.RevParse(ctx, "HEAD")
	tests := []struct {
		rev      string
		from, to int
		want     []string // sha:summary:lines
		wantErr  bool
	}{
		{rev: c3, from: 1, to: 2, want: []string{c2 + ":second:1", c3 + ":third:1"}},
		{rev: c3, from: 2, to: 2, want: []string{c3 + ":third:1"}},
		{rev: c2, from: 1, to: 1, want: []string{c2 + ":second:1"}},
		{rev: c1, from: 1, to: 1, want: []string{c1 + ":first:1"}},
		{rev: c1, from: 2, to: 2, wantErr: true}, // a.c has one line there
	}
	for _, tt := range tests {
		cs, err := g.Blame(ctx, tt.rev, "a.c", tt.from, tt.to)
		if (err != nil) != tt.wantErr {
			t.Errorf("Blame(%.8s, %d, %d): %v", tt.rev, tt.from, tt.to, err)
			continue
		}
		var got []string
		for _, c := range cs {
			got = append(got, fmt.Sprintf("%s:%s:%d", c.SHA, c.Summary, c.Lines))
			if c.AuthorTime == 0 {
				t.Errorf("no author time for %s", c.SHA)
			}
			if c.Boundary != (c.SHA == c1) {
				t.Errorf("%s: boundary %v", c.Summary, c.Boundary)
			}
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("Blame(%.8s, %d, %d) = %v, want %v", tt.rev, tt.from, tt.to, got, tt.want)
		}
	}
}

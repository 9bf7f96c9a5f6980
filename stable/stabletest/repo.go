// Package stabletest builds real git repositories with history for the
// tests of package stable and of the reply renderer: a mainline with a few
// commits and stable branches that lack some of them, and patch mails made
// with git format-patch.
package stabletest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/series"
)

// Repo is a git repository made by a test in a temporary directory.
type Repo struct {
	t   testing.TB
	Dir string
	n   int
}

// NewRepo makes an empty repository (branch master).
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "master")
	return r
}

// Open wraps an existing repository (e.g. a shared clone).
func Open(t testing.TB, dir string) *Repo {
	return &Repo{t: t, Dir: dir}
}

// Git runs git in the repository and returns its trimmed stdout; it fails
// the test on error.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := r.TryGit(args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// TryGit runs git and returns its trimmed stdout or an error.
func (r *Repo) TryGit(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	date := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.n) * time.Hour).Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Test Author", "GIT_AUTHOR_EMAIL=author@example.org",
		"GIT_COMMITTER_NAME=Test Committer", "GIT_COMMITTER_EMAIL=committer@example.org",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// Write creates or overwrites path with content.
func (r *Repo) Write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Replace edits path, replacing the first old (which must be present) by new.
func (r *Repo) Replace(path, old, new string) {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, path))
	if err != nil {
		r.t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		r.t.Fatalf("%s does not contain %q", path, old)
	}
	r.Write(path, strings.Replace(string(b), old, new, 1))
}

// Commit commits the given paths (all changes when none) with message msg
// and returns the commit id. Each commit is an hour after the previous one
// so that "oldest first" orders are deterministic.
func (r *Repo) Commit(msg string, paths ...string) string {
	r.t.Helper()
	r.n++
	if len(paths) == 0 {
		r.Git("add", "-A")
	} else {
		r.Git(append([]string{"add", "--"}, paths...)...)
	}
	r.Git("commit", "-q", "--no-verify", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// CherryPick cherry-picks sha onto the current branch (a backport with a
// new commit id and the same subject).
func (r *Repo) CherryPick(sha string) string {
	r.t.Helper()
	r.n++
	r.Git("cherry-pick", "--allow-empty", sha)
	return r.Git("rev-parse", "HEAD")
}

// PatchMail returns commit sha as a parsed patch mail (git format-patch),
// with extra header lines (e.g. "Cc: stable@vger.kernel.org") inserted.
func (r *Repo) PatchMail(sha string, extraHeaders ...string) *mail.Message {
	r.t.Helper()
	raw := r.Git("format-patch", "-1", "--stdout", "--no-signature", sha)
	return ParseMail(r.t, raw, extraHeaders...)
}

// ParseMail parses a format-patch style text (an mbox "From " line is
// dropped) with extra header lines inserted.
func ParseMail(t testing.TB, raw string, extraHeaders ...string) *mail.Message {
	t.Helper()
	if i := strings.IndexByte(raw, '\n'); strings.HasPrefix(raw, "From ") && i > 0 {
		raw = raw[i+1:]
	}
	if len(extraHeaders) > 0 {
		raw = strings.Join(extraHeaders, "\n") + "\n" + raw
	}
	m, err := mail.Parse(strings.NewReader(raw + "\n"))
	if err != nil {
		t.Fatalf("parse patch mail: %v", err)
	}
	return m
}

// Series wraps patch mails into one series, numbered in order.
func Series(msgs ...*mail.Message) *series.Series {
	s := &series.Series{ID: msgs[0].MessageID, Title: msgs[0].Subject.Title, Author: msgs[0].From,
		Version: 1, Total: len(msgs), Date: msgs[0].Date}
	for i, m := range msgs {
		s.Patches = append(s.Patches, &series.Patch{Msg: m, Number: i + 1})
	}
	return s
}

// CommitFiles makes a commit on top of parent that sets the given files
// (path -> content) without a checkout (git plumbing with a temporary
// index), so it works on a bare clone of a large tree. It returns the new
// commit id; no branch is moved.
func (r *Repo) CommitFiles(parent string, files map[string]string, msg string) string {
	r.t.Helper()
	r.n++
	index := filepath.Join(r.t.TempDir(), "index")
	env := "GIT_INDEX_FILE=" + index
	r.gitEnv(env, "read-tree", parent)
	for path, content := range files {
		blob := r.gitInput(content, "hash-object", "-w", "--stdin")
		r.gitEnv(env, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+path)
	}
	tree := r.gitEnv(env, "write-tree")
	return r.gitInput(msg, "commit-tree", tree, "-p", parent)
}

// Show returns the content of path at rev.
func (r *Repo) Show(rev, path string) string {
	r.t.Helper()
	cmd := exec.Command("git", "cat-file", "blob", rev+":"+path)
	cmd.Dir = r.Dir
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git cat-file %s:%s: %v", rev, path, err)
	}
	return string(out)
}

func (r *Repo) gitEnv(env string, args ...string) string {
	r.t.Helper()
	return r.gitFull(env, "", args...)
}

func (r *Repo) gitInput(stdin string, args ...string) string {
	r.t.Helper()
	return r.gitFull("", stdin, args...)
}

func (r *Repo) gitFull(env, stdin string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	date := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.n) * time.Hour).Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Test Author", "GIT_AUTHOR_EMAIL=author@example.org",
		"GIT_COMMITTER_NAME=Test Committer", "GIT_COMMITTER_EMAIL=committer@example.org",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	if env != "" {
		cmd.Env = append(cmd.Env, env)
	}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

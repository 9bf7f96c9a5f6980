package testtree

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Author is the identity of the commits Git makes ("A U Thor
// <author@example.org>", as git's own tests).
const (
	AuthorName  = "A U Thor"
	AuthorEmail = "author@example.org"
)

// gitEnv is the environment of Git: the test's, with a fixed identity and
// no global or system configuration (a developer's hooks, signing or
// default branch do not leak into tests). Dates are the test's: set
// GIT_AUTHOR_DATE and GIT_COMMITTER_DATE with t.Setenv to fix them.
func gitEnv() []string {
	return append(os.Environ(),
		"GIT_AUTHOR_NAME="+AuthorName, "GIT_AUTHOR_EMAIL="+AuthorEmail,
		"GIT_COMMITTER_NAME="+AuthorName, "GIT_COMMITTER_EMAIL="+AuthorEmail,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
}

// Git runs git with args in dir and returns its standard output; a
// failure fails t with git's standard error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return GitInput(t, dir, "", args...)
}

// GitInput is Git with stdin as git's standard input.
func GitInput(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// Repo writes files into a new temporary directory, makes it a git
// repository and commits them (an empty commit when there are none) with
// message "base", tagged base. It returns the directory.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := Dir(t, files)
	Git(t, dir, "init", "-q")
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "base")
	Git(t, dir, "tag", "base")
	return dir
}

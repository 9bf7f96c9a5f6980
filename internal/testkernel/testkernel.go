// Package testkernel gives tests one shared, extracted copy of Debian's
// linux-source-6.1 tree, committed into a git repository (one base commit),
// so every test that needs a real kernel tree uses the same copy and nobody
// extracts it twice. Tests must not modify the checkout: use a git worktree
// or clone for changes.
package testkernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/flock"
)

// EnvDir names the environment variable that overrides the tree location.
const EnvDir = "AUTOSEL_KERNEL_SRC"

// DefaultDir is where the shared tree lives unless EnvDir says otherwise.
const DefaultDir = "/var/tmp/autosel-bot/linux-6.1"

// Tarball is the Debian package's source tarball.
const Tarball = "/usr/src/linux-source-6.1.tar.xz"

// BaseSubject is the subject of the single base commit of the tree repo.
const BaseSubject = "Linux 6.1 (Debian linux-source-6.1)"

// Dir returns the shared kernel tree, preparing it on first use. Without a
// tarball it skips the test, except under CI=true where it fails: CI
// installs the package, so a missing tree there is a real error.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := Prepare()
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("kernel tree: %v", err)
		}
		tb.Skipf("kernel tree not available: %v", err)
	}
	return dir
}

// Prepare extracts the tarball and commits it into a git repository at the
// shared location (under a file lock, once), and returns the directory.
func Prepare() (string, error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		dir = DefaultDir
	}
	if ready(dir) {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	unlock, err := flock.Lock(context.Background(), dir+".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if ready(dir) {
		return dir, nil
	}
	if _, err := os.Stat(Tarball); err != nil {
		return "", fmt.Errorf("%s missing (apt-get install linux-source-6.1): %w", Tarball, err)
	}
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	// The stamp is taken before extracting: a tarball replaced meanwhile
	// is then found stale next time, not taken for the one extracted.
	stamp, err := tarballStamp()
	if err != nil {
		return "", err
	}
	if err := run(tmp, "tar", "-xf", Tarball, "--strip-components=1"); err != nil {
		return "", err
	}
	if err := stripDebianIgnore(filepath.Join(tmp, ".gitignore")); err != nil {
		return "", err
	}
	steps := [][]string{
		{"git", "init", "-q", "-b", "master"},
		{"git", "add", "-A"},
		{"git", "-c", "user.name=autosel-bot test", "-c", "user.email=test@autosel-bot.invalid",
			"commit", "-q", "--no-verify", "-m", BaseSubject},
		{"git", "tag", "base"},
	}
	for _, s := range steps {
		if err := run(tmp, s[0], s[1:]...); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".git", stampFile), []byte(stamp), 0o644); err != nil {
		return "", err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// ready reports whether dir holds the tree of the installed tarball: a
// tree extracted from an older linux-source-6.1 (the package upgraded
// since, or installed from stale package lists) is extracted again, since
// the corpus's patches and expectations are written against one release.
func ready(dir string) bool {
	want, err := tarballStamp()
	if err != nil {
		want = "" // no tarball to compare with: keep the tree
	}
	return readyFor(dir, want)
}

// readyFor reports whether dir holds a prepared tree extracted from the
// tarball that stamp identifies ("": from any).
func readyFor(dir, want string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "tags", "base")); err != nil {
		return false
	}
	if want == "" {
		return true
	}
	got, err := os.ReadFile(filepath.Join(dir, ".git", stampFile))
	return err == nil && string(got) == want
}

// stampFile, in the tree's .git directory, records the tarball the tree
// was extracted from.
const stampFile = "autosel-tarball"

// tarballStamp identifies the installed tarball by size and modification
// time.
func tarballStamp() (string, error) {
	fi, err := os.Stat(Tarball)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %d %d\n", Tarball, fi.Size(), fi.ModTime().Unix()), nil
}

// stripDebianIgnore removes Debian's trailing "/*" and "!/debian/" lines,
// which would make git add nothing.
func stripDebianIgnore(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l == "/*" || l == "!/debian/" {
			continue
		}
		out = append(out, l)
	}
	return os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644)
}

func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, lastLines(string(out), 10))
	}
	return nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

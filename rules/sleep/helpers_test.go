package sleep

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
)

// sleepRule builds the rule with the built-in tables.
func sleepRule(t testing.TB) *Rule {
	t.Helper()
	r, err := NewSleepInAtomic(Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runSleepPatch runs the rule on a patch: patch-only when ix is nil, else
// applied onto tree (a directory) with ix as the base index.
func runSleepPatch(t testing.TB, patch, tree string, ix *index.Index) ([]report.Finding, []string) {
	t.Helper()
	cs, err := diffcheck.Parse(patch)
	if err != nil {
		t.Fatalf("parse patch: %v", err)
	}
	pass := &Pass{Change: cs, Patch: 1}
	if ix != nil {
		if err := diffcheck.ApplyTree(cs, diffcheck.DirTree(tree)); err != nil {
			t.Fatalf("apply: %v", err)
		}
		pass.Index = ix
		if pt, ok := cs.Tree.(*diffcheck.PatchedTree); ok {
			if files := pt.Files(); len(files) > 0 {
				pass.Index = ix.Overlay(files)
			}
		}
	}
	fs, err := sleepRule(t).Run(pass)
	if err != nil {
		t.Fatal(err)
	}
	return fs, pass.Notes
}

// snippetTree writes files into a fresh git repository and returns it.
func snippetTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
	return dir
}

func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// diffOf returns the patch turning the repo's files into newFiles (the
// repo is left unchanged).
func diffOf(t testing.TB, dir string, newFiles map[string]string) string {
	t.Helper()
	for p, s := range newFiles {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := gitRun(t, dir, "diff")
	gitRun(t, dir, "checkout", "-q", "--", ".")
	return d
}

// seedPatch returns patch n (1-based) of a seed mbox in testdata/seeds.
func seedPatch(t testing.TB, mbox string, n int) string {
	t.Helper()
	msgs, errs := mail.Load(context.Background(), []string{filepath.Join("..", "testdata", "seeds", mbox)}, nil)
	if len(errs) > 0 {
		t.Fatalf("load %s: %v", mbox, errs[0])
	}
	for _, m := range msgs {
		if m.Diff != "" && strings.Contains(m.Subject.Raw, "/") && m.Subject.Number == n && !m.Subject.Reply {
			return m.Diff
		}
	}
	t.Fatalf("%s: patch %d not found", mbox, n)
	return ""
}

var (
	kernelIndexOnce sync.Once
	kernelIndex     *index.Index
	kernelIndexErr  error
)

// kernelIndexFor returns the index of the shared Linux 6.1 tree, cached
// next to it so later runs load it in seconds.
func kernelIndexFor(t testing.TB) (string, *index.Index) {
	t.Helper()
	dir := testkernel.Dir(t)
	kernelIndexOnce.Do(func() {
		kernelIndex, kernelIndexErr = index.Open(context.Background(), dir, index.Options{
			CacheDir: filepath.Join(filepath.Dir(dir), "index-cache"),
		})
	})
	if kernelIndexErr != nil {
		t.Fatal(kernelIndexErr)
	}
	return dir, kernelIndex
}

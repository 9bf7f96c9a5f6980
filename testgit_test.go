package autoselbot

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// directGit matches a test running git itself instead of through
// internal/testtree (Git, GitInput, Repo), which fixes the identity and
// keeps the user's git configuration out.
var directGit = regexp.MustCompile(`exec\.Command(Context)?\((ctx, )?"git"`)

// TestTestsUseTesttreeGit: tests make and query their git repositories
// with internal/testtree.
func TestTestsUseTesttreeGit(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == filepath.Join("internal", "testtree") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if loc := directGit.FindIndex(data); loc != nil {
			line := 1 + strings.Count(string(data[:loc[0]]), "\n")
			t.Errorf("%s:%d runs git directly: use testtree.Git, GitInput or Repo", path, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

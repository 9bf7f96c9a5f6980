package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/report"
)

// TestTestCmdKCIDB: test --format kcidb writes KCIDB I/O; a refused patch
// gives an invalid patched checkout (why, in its log excerpt) and no build.
func TestTestCmdKCIDB(t *testing.T) {
	dir := t.TempDir()
	gitc := func(args ...string) {
		t.Helper()
		testtree.Git(t, dir, args...)
	}
	gitc("init", "-q")
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n"), 0o644)
	gitc("add", "Makefile")
	gitc("commit", "-q", "-m", "a")
	gitc("tag", "A")
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\ttouch /tmp/pwned\n"), 0o644)
	gitc("commit", "-q", "-am", "b")
	code, stdout, stderr := runCLI(t, "", "test", "--tree", dir, "--range", "A..HEAD", "--format", "kcidb",
		"--config", writeRunnerConfig(t))
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var d report.KCIDBData
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if d.Version.Major != 4 || len(d.Checkouts) != 2 || d.Checkouts[1].Valid || !strings.Contains(d.Checkouts[1].LogExcerpt, "Makefile") ||
		len(d.Checkouts[1].PatchsetHash) != 64 || d.Checkouts[1].Comment != "A..HEAD" {
		t.Errorf("%s", stdout)
	}
	for _, b := range d.Builds {
		if b.CheckoutID == d.Checkouts[1].ID {
			t.Errorf("a refused patch was built: %+v", b)
		}
	}
}

package rulestest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mail"
)

// checkSeed checks that the case's patch is the diff the mail layer
// extracts from its seed: the first message of the seed mbox (in the
// repository's testdata/seeds) with a diff and the seed's subject
// substring in its subject.
func (c *Case) checkSeed(t *testing.T) {
	t.Helper()
	mbox, subject, _ := strings.Cut(c.Seed, " ")
	subject = strings.TrimSpace(subject)
	msgs, errs := mail.Load(context.Background(), []string{filepath.Join(repoRoot(t), "testdata", "seeds", mbox)}, nil)
	if len(msgs) == 0 {
		t.Fatalf("seed %s: no messages: %v", mbox, errs)
	}
	for _, m := range msgs {
		if m.Diff == "" || !strings.Contains(m.Subject.Raw, subject) {
			continue
		}
		if m.Diff != c.Patch {
			t.Errorf("the patch is not the diff of seed %s, message %q", mbox, m.Subject.Raw)
		}
		return
	}
	t.Errorf("seed %s: no message with a diff and %q in its subject", mbox, subject)
}

// repoRoot returns the directory holding go.mod above the working
// directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

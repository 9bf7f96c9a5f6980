package rulestest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
)

// RunGenerated runs rule over the patch turning the file path of a tree
// holding it alone from pre into post (a generated variant: one file,
// written to a temporary directory and indexed) and returns the findings
// in report order.
func RunGenerated(t *testing.T, rule *rules.Rule, path, pre, post string) []report.Finding {
	t.Helper()
	dir, ix := writeTree(t, map[string]string{path: pre})
	fs, _ := Run(t, rule, LineDiff(path, pre, post), dir, ix)
	return fs
}

// writeTree writes files (path -> text) into a temporary directory and
// returns it and its index.
func writeTree(t *testing.T, files map[string]string) (string, *index.Index) {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := index.Open(context.Background(), dir, index.Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	return dir, ix
}

// LineDiff returns a one-hunk diff of path from pre to post (texts ending
// in a newline), from their longest common subsequence of lines.
func LineDiff(path, pre, post string) string {
	a := strings.SplitAfter(pre, "\n")
	a = a[:len(a)-1]
	b := strings.SplitAfter(post, "\n")
	b = b[:len(b)-1]
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var h strings.Builder
	fmt.Fprintf(&h, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n", path, path, path, path, len(a), len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			h.WriteString(" " + a[i])
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			h.WriteString("+" + b[j])
			j++
		default:
			h.WriteString("-" + a[i])
			i++
		}
	}
	return h.String()
}

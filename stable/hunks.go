package stable

import (
	"context"
	"fmt"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/autosel-bot/autosel-bot/internal/git"
)

// fileDiff is one file of a patch, reduced to what the stable stage needs.
type fileDiff struct {
	oldName, newName string
	isNew, isDelete  bool
	oldBlob          string // abbreviated pre-image blob id from the index line
	hunks            []hunk
}

// hunk is one text fragment: where it starts in the pre-image, and the
// lines the pre-image must contain there (context and removed lines).
type hunk struct {
	file     string
	oldStart int // 1-based
	oldLines int
	pre      []string
}

// parseDiff parses a unified git diff.
func parseDiff(diff string) ([]fileDiff, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		return nil, fmt.Errorf("parse diff: %w", err)
	}
	var out []fileDiff
	for _, f := range files {
		fd := fileDiff{oldName: f.OldName, newName: f.NewName, isNew: f.IsNew, isDelete: f.IsDelete, oldBlob: f.OldOIDPrefix}
		if fd.oldName == "" {
			fd.oldName = fd.newName
		}
		for _, fr := range f.TextFragments {
			h := hunk{file: fd.oldName, oldStart: int(fr.OldPosition), oldLines: int(fr.OldLines)}
			for _, l := range fr.Lines {
				if l.Old() {
					h.pre = append(h.pre, strings.TrimSuffix(l.Line, "\n"))
				}
			}
			fd.hunks = append(fd.hunks, h)
		}
		out = append(out, fd)
	}
	return out, nil
}

// paths returns the pre-image paths a diff touches.
func paths(files []fileDiff) []string {
	var ps []string
	for _, f := range files {
		if !f.isNew {
			ps = append(ps, f.oldName)
		}
	}
	return ps
}

// failingHunks returns the hunks of files whose pre-image is not found in
// tree (a tree or commit id of g's repository; "" for g's index): the hunk's context and
// removed lines must appear as one block, anywhere in the file (git apply
// also accepts an offset). A file the tree lacks fails all its hunks.
func failingHunks(ctx context.Context, g *git.Git, tree string, files []fileDiff) ([]hunk, error) {
	var failed []hunk
	for _, f := range files {
		if f.isNew || len(f.hunks) == 0 {
			continue
		}
		content, err := g.Run(ctx, "cat-file", "blob", tree+":"+f.oldName) // ":path" is the index
		if err != nil {
			failed = append(failed, f.hunks...)
			continue
		}
		lines := splitLines(content)
		for _, h := range f.hunks {
			if findBlock(lines, h.pre, h.oldStart-1) < 0 {
				failed = append(failed, h)
			}
		}
	}
	return failed, nil
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// findBlock returns the 0-based index where block occurs in lines,
// preferring the position nearest hint, or -1.
func findBlock(lines, block []string, hint int) int {
	if len(block) == 0 {
		return max(0, min(hint, len(lines)))
	}
	n := len(lines) - len(block)
	if n < 0 {
		return -1
	}
	match := func(i int) bool {
		for j, b := range block {
			if lines[i+j] != b {
				return false
			}
		}
		return true
	}
	hint = max(0, min(hint, n))
	for d := 0; d <= n; d++ {
		if i := hint - d; i >= 0 && match(i) {
			return i
		}
		if i := hint + d; d > 0 && i <= n && match(i) {
			return i
		}
		if hint-d < 0 && hint+d > n {
			break
		}
	}
	return -1
}

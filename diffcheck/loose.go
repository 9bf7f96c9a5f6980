package diffcheck

import (
	"fmt"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// normWS collapses every run of white space into one space and trims.
func normWS(s string) string { return strings.Join(strings.Fields(s), " ") }

// findLoose is findPreimage with white space ignored: the 0-based line at
// or after min, nearest to want, where pre matches src when runs of white
// space compare equal; -1 if nowhere. An all-blank pre-image never
// matches loosely.
func findLoose(src [][]byte, pre []string, want, min int) int {
	if len(pre) == 0 || len(src) > 200000 {
		return -1
	}
	np := make([]string, len(pre))
	blank := true
	for i, l := range pre {
		np[i] = normWS(l)
		if np[i] != "" {
			blank = false
		}
	}
	if blank {
		return -1
	}
	match := func(at int) bool {
		if at < min || at+len(pre) > len(src) {
			return false
		}
		for i, l := range np {
			if normWS(string(src[at+i])) != l {
				return false
			}
		}
		return true
	}
	for d := 0; want-d >= min || want+d < len(src); d++ {
		if match(want + d) {
			return want + d
		}
		if d > 0 && match(want-d) {
			return want - d
		}
	}
	return -1
}

// restoreFromTree replaces the context and removed lines of h, which match
// src from line at on with white space ignored, by the tree's exact text,
// in both the hunk and the fragment applied. An added line whose text
// equals (white space ignored) a removed line it replaces takes that
// line's indentation from the tree.
func restoreFromTree(f *FileChange, h *Hunk, src [][]byte, at int) {
	i := at
	indent := map[string]string{} // normalised removed line -> tree indentation
	for k := range h.frag.Lines {
		fl := &h.frag.Lines[k]
		if !fl.Old() {
			continue
		}
		tree := string(src[i])
		fl.Line = tree
		if fl.Op == gitdiff.OpDelete {
			indent[normWS(tree)] = tree[:len(tree)-len(strings.TrimLeft(tree, " \t"))]
		}
		i++
	}
	for k := range h.frag.Lines {
		fl := &h.frag.Lines[k]
		if fl.Old() {
			continue
		}
		body := strings.TrimLeft(fl.Line, " \t")
		if ind, ok := indent[normWS(fl.Line)]; ok {
			fl.Line = ind + body
		}
	}
	// The hunk's lines mirror the fragment's, one for one.
	for k := range h.Lines {
		if k < len(h.frag.Lines) {
			h.Lines[k].Text = strings.TrimSuffix(h.frag.Lines[k].Line, "\n")
		}
	}
	f.restored = append(f.restored, fmt.Sprintf("hunk %s (%s:%d-%d)", h.Header(), f.OldPath, at+1, i))
}

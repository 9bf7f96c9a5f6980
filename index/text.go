package index

import (
	"fmt"
	"os"
)

// textBudget bounds the bytes of base-tree files Text keeps.
const textBudget = 64 << 20

// Text returns the current content of a file of the view, as ReadFile
// does, but as a string. A file an overlay (a patch's view) reads from
// disk is kept by the underlying index, up to textBudget bytes (the
// least recently used go first), and shared by every overlay over it: the many
// analyses of one process that read the same tree files (a rule's view
// of the functions around a patch) read and copy each once. The tree's
// own view keeps nothing: its whole-tree passes (the summaries) read a
// file once per pass and need the memory more. The patch's text of a
// rescanned file is not kept.
func (ix *Index) Text(path string) (string, error) {
	b, disk, err := ix.source(path)
	if err != nil {
		return "", err
	}
	if disk == "" {
		return string(b), nil
	}
	if ix.base == nil {
		return readText(path, disk)
	}
	root := ix.base
	root.mu.Lock()
	s, ok := root.text.get(disk)
	root.mu.Unlock()
	if ok {
		return s, nil
	}
	if s, err = readText(path, disk); err != nil {
		return "", err
	}
	root.mu.Lock()
	root.text.put(disk, s)
	root.mu.Unlock()
	return s, nil
}

// readText reads the file disk of the tree (path within it) if it is a
// regular file: a FIFO or a device in a tree is refused before open can
// block on it.
func readText(path, disk string) (string, error) {
	if st, err := os.Stat(disk); err != nil {
		return "", err
	} else if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	data, err := os.ReadFile(disk)
	return string(data), err
}

// textCache holds file contents by path, least recently used first out
// past textBudget bytes; a file larger than the budget is not kept.
type textCache struct{ lru[string] }

// put keeps s as the content of path.
func (c *textCache) put(path, s string) {
	if len(s) <= textBudget {
		c.lru.put(path, s, int64(len(s)), 0, textBudget)
	}
}

// Package testtree builds the inputs of tests over small source trees:
// the tree on disk, its git repository (git.go: the one way tests run
// git), and for tests that compare a patched view of it
// (index.Index.Overlay) with the patched tree indexed on its own, the
// overlay and the patched files.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (path relative to dir -> text) under dir, making
// the directories they need.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		name := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Dir writes files into a temporary directory of their own and returns it.
func Dir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	Write(t, dir, files)
	return dir
}

// Patched applies patch (path -> new text; "" deletes the file) to tree:
// it returns the overlay of the patch (a nil value for a deleted file) and
// the files of the patched tree.
func Patched(tree, patch map[string]string) (overlay map[string][]byte, files map[string]string) {
	overlay, files = map[string][]byte{}, map[string]string{}
	for p, s := range tree {
		files[p] = s
	}
	for p, s := range patch {
		if s == "" {
			overlay[p] = nil
			delete(files, p)
			continue
		}
		overlay[p] = []byte(s)
		files[p] = s
	}
	return overlay, files
}

// Package testtree builds the inputs of tests that compare a patched view
// of a small tree (index.Index.Overlay) with the patched tree indexed on
// its own.
package testtree

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

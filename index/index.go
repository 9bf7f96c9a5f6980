// Package index is the tree index: every function of a kernel tree scanned
// by cscan, with per-function summaries (atomic-state effect, may-sleep with
// proof chain), persisted and keyed by git blob ids so unchanged files are
// never rescanned.
package index

// Index is a scanned tree. See the methods in this package.
type Index struct {
	// Root is the tree's directory.
	Root string
}

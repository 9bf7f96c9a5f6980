package diffcheck

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// MaxTreeFileSize bounds the files DirTree reads.
const MaxTreeFileSize = 64 << 20

// DirTree returns a read-only Tree over the directory root. ReadFile refuses
// paths that fail CheckPath and symlinks that lead out of root (it reads
// through os.Root), and files larger than MaxTreeFileSize.
func DirTree(root string) Tree {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	return &dirTree{root: abs}
}

type dirTree struct{ root string }

func (t *dirTree) Root() string { return t.root }

// Name is the directory's last element: what reports call the tree.
func (t *dirTree) Name() string { return filepath.Base(t.root) }

// TreeName is how reports name t. Reports leave the server (mail replies,
// reviews), so a directory tree is named by its last path element, never
// by where it lies on this machine; in-memory trees by their description.
func TreeName(t Tree) string {
	if n, ok := t.(interface{ Name() string }); ok {
		return n.Name()
	}
	if pt, ok := t.(*PatchedTree); ok {
		return TreeName(pt.base)
	}
	return t.Root()
}

func (t *dirTree) ReadFile(p string) ([]byte, error) {
	if err := CheckPath(p); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(t.root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// Stat first so a FIFO or device is refused before open can block.
	if st, err := r.Stat(p); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	f, err := r.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	if st.Size() > MaxTreeFileSize {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d-byte limit", p, st.Size(), MaxTreeFileSize)
	}
	b := make([]byte, st.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && n != len(b) {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return b[:n], nil
}

// PatchedTree is a post-patch view of a tree: the patched bytes of the
// files a patch (or a chain of patches) touched, the base tree for the
// rest. It never writes anywhere.
type PatchedTree struct {
	base    Tree
	files   map[string][]byte
	deleted map[string]bool
}

// NewPatchedTree returns an empty overlay over base. When base is itself a
// *PatchedTree the overlays are flattened, so patches of a series stack.
func NewPatchedTree(base Tree) *PatchedTree {
	t := &PatchedTree{base: base, files: map[string][]byte{}, deleted: map[string]bool{}}
	if pt, ok := base.(*PatchedTree); ok {
		t.base = pt.base
		for k, v := range pt.files {
			t.files[k] = v
		}
		for k := range pt.deleted {
			t.deleted[k] = true
		}
	}
	return t
}

// Root returns the base tree's root.
func (t *PatchedTree) Root() string { return t.base.Root() }

// Base returns the unpatched tree.
func (t *PatchedTree) Base() Tree { return t.base }

// ReadFile returns the patched file, or the base tree's. The returned slice
// must not be modified.
func (t *PatchedTree) ReadFile(p string) ([]byte, error) {
	if err := CheckPath(p); err != nil {
		return nil, err
	}
	if t.deleted[p] {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	if b, ok := t.files[p]; ok {
		return b, nil
	}
	return t.base.ReadFile(p)
}

// Files returns the patched files (path -> post-patch bytes) for index
// overlays. Deleted files map to nil.
func (t *PatchedTree) Files() map[string][]byte {
	m := make(map[string][]byte, len(t.files)+len(t.deleted))
	for k, v := range t.files {
		m[k] = v
	}
	for k := range t.deleted {
		m[k] = nil
	}
	return m
}

// Paths returns the patched and deleted paths, sorted.
func (t *PatchedTree) Paths() []string {
	var out []string
	for k := range t.files {
		out = append(out, k)
	}
	for k := range t.deleted {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (t *PatchedTree) set(p string, b []byte) {
	delete(t.deleted, p)
	t.files[p] = b
}

func (t *PatchedTree) remove(p string) {
	delete(t.files, p)
	t.deleted[p] = true
}

// MapTree is an in-memory Tree (for tests and for trees built from git
// objects): Files maps repository-relative paths to contents.
type MapTree struct {
	// Name is what Root returns.
	Name string
	// Files are the tree's files.
	Files map[string][]byte
}

// Root returns t.Name.
func (t *MapTree) Root() string { return t.Name }

// ReadFile returns the file at p, or an error wrapping fs.ErrNotExist.
func (t *MapTree) ReadFile(p string) ([]byte, error) {
	if err := CheckPath(p); err != nil {
		return nil, err
	}
	b, ok := t.Files[p]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	return b, nil
}

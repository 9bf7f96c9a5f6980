package lockctx

import (
	"bytes"
	"slices"
	"strings"
)

// A patch that changes an MFD parent (its regmap config, its cells)
// changes what the regmap accessors of its children decide
// (mfdparent.go), in files the patch leaves alone. Their functions are
// then sources: never read from the summary store or the summaries
// shared between views, and seeds of the store's climb.

// childScanDirs are where MFD child drivers live.
var childScanDirs = []string{"drivers/", "sound/"}

// findChangedChildren fills r.changedChildren with the files of the
// child drivers bound to a cell that a parent the view's patch changes
// registers, before or after the patch.
func (r *Resolver) findChangedChildren() {
	r.changedChildren = map[string]bool{}
	if r.ix == nil {
		return
	}
	root := r.ix.Underlying()
	var names []string
	for _, p := range r.ix.OverlaidPaths() {
		before, _ := root.ReadFile(p)
		after, _ := r.ix.ReadFile(p)
		for _, src := range [][]byte{before, after} {
			if !bytes.Contains(src, []byte("mfd_")) {
				continue
			}
			for _, n := range cellNames(src) {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	if len(names) == 0 {
		return
	}
	children := r.mfdChildren()
	for _, n := range names {
		for _, f := range children[n] {
			if !r.ix.Overlaid(f) {
				r.changedChildren[f] = true
			}
		}
	}
}

// mfdChildren returns, by device name, the tree's files of platform
// drivers that read their parent device and bind to that name (once per
// tree, and only for a patch that changes an MFD parent: it reads every
// driver's source).
func (r *Resolver) mfdChildren() map[string][]string {
	root := r.ix.Underlying()
	return root.Memo("lockctx.mfdchildren", func() any {
		out := map[string][]string{}
		for _, p := range root.Paths() {
			if !strings.HasSuffix(p, ".c") || !slices.ContainsFunc(childScanDirs, func(d string) bool { return strings.HasPrefix(p, d) }) {
				continue
			}
			src, err := root.ReadFile(p)
			if err != nil {
				continue
			}
			for _, n := range childDeviceNames(src) {
				out[n] = append(out[n], p)
			}
		}
		return out
	}).(map[string][]string)
}

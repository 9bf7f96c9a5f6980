package lockctx

import (
	"bytes"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
)

// maxFamilyFiles bounds the files of a driver family scanned for
// initializers naming functions by address.
const maxFamilyFiles = 400

// addrInitRe matches an initializer element naming a function by address
// (".get_vport_stats = &qed_get_vport_stats,").
var addrInitRe = regexp.MustCompile(`=\s*&\s*([A-Za-z_]\w*)\s*([,}])`)

// addrAssigns returns the assignments to member of struct tag written
// with an address-of (".get_vport_stats = &qed_get_vport_stats"), which
// the index's assignment table does not hold, searched in the driver
// family of the caller: the files under the parent of the caller's
// directory (drivers/net/ethernet/qlogic/ for a qede caller reaching qed's
// ops), when that parent is at least three levels deep.
func (r *Resolver) addrAssigns(tag, member string, caller *cscan.Func) []index.Assign {
	var out []index.Assign
	for _, a := range r.familyAddrAssigns(familyRoot(caller.File)) {
		if a.Struct == tag && a.Member == member {
			out = append(out, a)
		}
	}
	return out
}

// familyAddrAssigns returns the initializers naming functions by address
// in the C files under root (bounded), once per resolver (fileAddrAssigns).
func (r *Resolver) familyAddrAssigns(root string) []index.Assign {
	if out, ok := r.familyCache[root]; ok {
		return out
	}
	var out []index.Assign
	for _, p := range r.familyFiles(root) {
		out = append(out, r.fileAddrAssigns(p)...)
	}
	r.familyCache[root] = out
	return out
}

// ownAddrAssigns returns the initializers of fn's own file that name fn
// by address (".enter = &snooze_loop" in a struct cpuidle_state table),
// which the index's assignment table does not hold: how a static
// callback is most often registered.
func (r *Resolver) ownAddrAssigns(fn *cscan.Func) []index.Assign {
	var out []index.Assign
	for _, a := range r.fileAddrAssigns(fn.File) {
		if a.Func == fn.Name {
			out = append(out, a)
		}
	}
	return out
}

// fileAddrAssigns returns the initializers of file p naming functions
// by address: the tree's, found once per tree whichever view asks first
// (a process that analyses many patches answers each as a process of its
// own would), or, for a file the view rescans, the view's, found once per
// resolver.
func (r *Resolver) fileAddrAssigns(p string) []index.Assign {
	if as, ok := r.fileAddrCache[p]; ok {
		return as
	}
	var as []index.Assign
	if r.ix.Overlaid(p) {
		as = scanAddrAssigns(r.ix, p)
	} else {
		tree := r.ix.Underlying()
		as, _ = tree.Memo("lockctx.fileaddrassigns:"+p, func() any { return scanAddrAssigns(tree, p) }).([]index.Assign)
	}
	r.fileAddrCache[p] = as
	return as
}

// scanAddrAssigns returns the initializers of file p of view ix naming a
// function of the view by address.
func scanAddrAssigns(ix *index.Index, p string) []index.Assign {
	var out []index.Assign
	// Most files have no such initializer: they are read into a reused
	// buffer.
	ix.WithSource(p, func(src []byte) {
		if !bytes.Contains(src, []byte("= &")) || !addrInitRe.Match(src) {
			return
		}
		// The index's scanner reads "= name,"; drop the '&' so it sees
		// these elements too (in a copy of its own), and keep only those
		// it missed.
		plain := addrInitRe.ReplaceAll(src, []byte("= $1$2"))
		for _, a := range index.ScanAssigns(p, plain) {
			if a.Struct == "" || a.Base != "" || !bytes.Contains(src, []byte("&"+a.Func)) {
				continue
			}
			if len(ix.Funcs(a.Func)) > 0 {
				out = append(out, a)
			}
		}
	})
	return out
}

// TreePaths returns the sorted file paths of the tree without the patch,
// listed once per tree.
func (r *Resolver) TreePaths() []string {
	return r.treePaths()
}

// familyRoot returns the directory of file's driver family: the parent
// of its directory when that parent is at least three levels deep
// (drivers/net/ethernet/qlogic/ for qede/), else its own directory (a
// subsystem's top such as sound/soc/ holds its core, no driver's).
func familyRoot(file string) string {
	root := path.Dir(path.Dir(file))
	if strings.Count(root, "/") < 2 {
		root = path.Dir(file)
	}
	return root
}

// familyFiles returns the tree's C files under root, at most
// maxFamilyFiles of them.
func (r *Resolver) familyFiles(root string) []string {
	var out []string
	paths := r.treePaths()
	for i := sort.SearchStrings(paths, root+"/"); i < len(paths) && strings.HasPrefix(paths[i], root+"/"); i++ {
		if !strings.HasSuffix(paths[i], ".c") {
			continue
		}
		if len(out) == maxFamilyFiles {
			break
		}
		out = append(out, paths[i])
	}
	return out
}

func (r *Resolver) treePaths() []string {
	v, _ := r.ix.Underlying().Memo("lockctx.paths", func() any { return r.ix.Underlying().Paths() }).([]string)
	return v
}

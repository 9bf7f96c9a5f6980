// Package patchguard decides whether patches from mail may be built. A
// kernel build runs code from the tree on the host (make recipes, Kconfig,
// scripts, the host programs kbuild compiles and runs), so a patch that
// changes such code is refused before anything is built. The build sandbox
// (internal/sandbox) is the boundary; the guard is defence in depth.
//
// The guard looks at what git will do, not at the patch text: the paths,
// modes and contents come from git applying the patches to a scratch index
// (git's own parsing and unquoting, so `"a/\115akefile"` is Makefile), and
// the host-code paths come from the tree's own Kbuild files (hostprogs,
// userprogs and the headers they include), on top of the configured globs.
package patchguard

import "fmt"

// Refusal says why a patch was not built.
type Refusal struct {
	// Patch names the patch, when known.
	Patch string `json:"patch,omitempty"`
	// Path is the offending path, as git sees it ("" for problems of the
	// whole patch).
	Path string `json:"path,omitempty"`
	// Line is the 1-based line in the patched file (0 when not about a
	// line).
	Line int `json:"line"`
	// Reason explains the refusal.
	Reason string `json:"reason"`
}

func (r Refusal) Error() string {
	where := r.Path
	if where != "" && r.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, r.Line)
	}
	if r.Patch != "" {
		if where == "" {
			where = r.Patch
		} else {
			where = r.Patch + ": " + where
		}
	}
	if where == "" {
		return r.Reason
	}
	return where + ": " + r.Reason
}

package wakeup

import "strings"

// callerView is a caller of a function, as the tree sees it, with the
// line of its call.
type callerView struct {
	f    *wfunc
	line int
}

// callerViews returns the tree's callers of f with their call lines: none
// without a tree or when f has more than maxCallers (a common helper,
// whose callers tell nothing about one path); recursive calls and, for a
// static function, callers in other files (another function of the same
// name) left out.
func (r *checker) callerViews(f *wfunc) []callerView {
	if r.tree == nil || f == nil || f.F == nil {
		return nil
	}
	callers := r.pass.Index.Callers(f.Name)
	if len(callers) > maxCallers {
		return nil
	}
	static := f.F.Static && !strings.HasSuffix(f.File, ".h")
	var out []callerView
	for _, cs := range callers {
		if cs.Func == nil || cs.Func.Name == f.Name || static && r.tree.relPath(cs.Func.File) != r.tree.relPath(f.File) {
			continue
		}
		out = append(out, callerView{f: r.tree.view(cs.Func), line: cs.Call.Line})
	}
	return out
}

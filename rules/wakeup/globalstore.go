package wakeup

import (
	"regexp"
	"strings"
)

// Shared state is not only a member of an object: a subsystem's state
// often lives in a variable at file scope (kernel/power/suspend.c keeps
// s2idle_state beside its lock and its swait queue). A plain assignment
// to such a variable stores what a sleeper's condition may read, like a
// member store.

// fileVarRe matches a variable declared at file scope: a line that
// starts at column 0 and ends the declarator with "=", ";" or an array
// bound, with no parenthesis before it (no function).
var fileVarRe = regexp.MustCompile(`^(?:static\s+|extern\s+)?[A-Za-z_][\w\s\*]*?[\s\*]([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?(?:=|;)`)

// globalStore returns the file-scope variable of file that line t
// assigns ("s2idle_state = S2IDLE_STATE_WAKE;"), "" when t assigns none
// (a local, a member, or no assignment). Without the tree it is "".
func (r *checker) globalStore(file, t string) string {
	code := strings.TrimSpace(codeOnly(t))
	m := plainStoreRe.FindStringSubmatch(code)
	if m == nil || r.tree == nil || !strings.HasPrefix(code, m[1]) {
		return ""
	}
	f := r.tree.file(file)
	if f.globals == nil {
		f.globals = fileVars(f.lines)
	}
	if f.globals[m[1]] {
		return m[1]
	}
	return ""
}

// fileVars returns the names of the variables declared at file scope in
// lines (column 0, outside any brace).
func fileVars(lines []string) map[string]bool {
	out := map[string]bool{}
	depth := 0
	for _, t := range lines {
		t = codeOnly(t)
		if depth == 0 && t != "" && !strings.HasPrefix(t, "#") && !strings.ContainsAny(t[:1], " \t") {
			if m := fileVarRe.FindStringSubmatch(t); m != nil && !strings.HasPrefix(t, "typedef") && !strings.HasPrefix(t, "return") {
				out[m[1]] = true
			}
		}
		depth += strings.Count(t, "{") - strings.Count(t, "}")
		if depth < 0 {
			depth = 0
		}
	}
	return out
}

// storedFields returns the fields (or the file-scope variable) that line
// t of function f stores, and whether it is a store of shared state at
// all (isStore, or globalStore).
func (r *checker) storedFields(f *wfunc, t string) ([]string, bool) {
	if isStore(t) {
		return fieldsIn(strings.SplitN(t, "=", 2)[0]), true
	}
	if g := r.globalStore(f.File, t); g != "" {
		return []string{g}, true
	}
	return nil, false
}

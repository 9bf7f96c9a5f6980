package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Shared state is not only a member of an object: a subsystem's state
// often lives in a variable at file scope (kernel/power/suspend.c keeps
// s2idle_state beside its lock and its swait queue). A plain assignment
// to such a variable stores what a sleeper's condition may read, like a
// member store.

var (
	// attrRe finds the attributes a declaration may carry
	// (__read_mostly, __attribute__((aligned(8)))).
	attrRe = regexp.MustCompile(`__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)|\b__\w+\b`)
	// lastIdentRe finds the name that ends a declarator.
	lastIdentRe = regexp.MustCompile(`([A-Za-z_]\w*)\s*$`)
	// tagOnlyRe matches a declarator list that only names a tag
	// ("struct foo", a forward declaration).
	tagOnlyRe = regexp.MustCompile(`^(?:struct|union|enum)\s+\w+$`)
)

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
// lines (one declaration per line starting at column 0, outside any
// brace).
func fileVars(lines typing.Lines) map[string]bool {
	out := map[string]bool{}
	depth := 0
	for _, t := range lines.All() {
		t = codeOnly(t)
		if depth == 0 && t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "typedef") && !strings.ContainsAny(t[:1], " \t{}") {
			for _, n := range declNames(t) {
				out[n] = true
			}
		}
		depth += strings.Count(t, "{") - strings.Count(t, "}")
		if depth < 0 {
			depth = 0
		}
	}
	return out
}

// declNames returns the variables a file-scope declaration line declares
// ("static int a, b[4] = { 0 };", "static struct ops x = {"): every
// declarator of the list, attributes left out; none for a function, a
// function pointer or a forward declaration.
func declNames(t string) []string {
	t = attrRe.ReplaceAllString(t, " ")
	end := strings.IndexByte(t, ';')
	if end < 0 {
		// An initializer that goes on below ("static struct ops x = {").
		if end = strings.IndexByte(t, '='); end < 0 {
			return nil
		}
	}
	var out []string
	decls, ok := cscan.SplitArgs(t[:end]+")", end+1)
	if !ok {
		return nil
	}
	for i, d := range decls {
		if eq := strings.IndexByte(d, '='); eq >= 0 {
			d = d[:eq]
		}
		if strings.ContainsAny(d, "()") {
			return out
		}
		for strings.HasSuffix(strings.TrimSpace(d), "]") {
			d = d[:strings.LastIndexByte(d, '[')]
		}
		d = strings.TrimSpace(strings.ReplaceAll(d, "*", " "))
		if i == 0 && (len(strings.Fields(d)) < 2 || tagOnlyRe.MatchString(d)) {
			return out
		}
		if m := lastIdentRe.FindStringSubmatch(d); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// storedFields returns the fields (or the file-scope variable, marked
// with globalMark) that line t of function f stores, and whether it is a
// store of shared state at all (isStore, or globalStore).
func (r *checker) storedFields(f *wfunc, t string) ([]string, bool) {
	if isStore(t) {
		return fieldsIn(strings.SplitN(t, "=", 2)[0]), true
	}
	if g := r.globalStore(f.File, t); g != "" {
		return []string{globalMark + g}, true
	}
	return nil, false
}

// globalMark marks a file-scope variable among stored fields: a
// condition reads it only where it is no member ("state", not
// "d->state").
const globalMark = "::"

// readsField reports whether text reads field fl: the word, or for a
// file-scope variable (globalMark) the word not preceded by "->" or ".".
func readsField(text, fl string) bool {
	g, ok := strings.CutPrefix(fl, globalMark)
	if !ok {
		return containsWord(text, fl)
	}
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], g)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(g)
		i = end
		if at > 0 && cscan.IsIdentChar(text[at-1]) || end < len(text) && cscan.IsIdentChar(text[end]) {
			continue
		}
		before := strings.TrimRight(text[:at], " \t")
		if !strings.HasSuffix(before, "->") && !strings.HasSuffix(before, ".") {
			return true
		}
	}
	return false
}

// shownFields joins stored fields for a message, marks left out.
func shownFields(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = strings.TrimPrefix(f, globalMark)
	}
	return strings.Join(out, ", ")
}

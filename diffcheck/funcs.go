package diffcheck

import (
	"path"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// IsCSource reports whether path names a C source or header, the files
// whose functions diffcheck maps.
func IsCSource(p string) bool {
	switch path.Ext(p) {
	case ".c", ".h":
		return true
	}
	return false
}

// cKeywords are identifiers that precede '(' without naming a function.
var cKeywords = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "return": true,
	"sizeof": true, "typeof": true, "__typeof__": true, "do": true, "else": true,
	"__attribute__": true, "case": true, "goto": true, "_Static_assert": true,
	"static_assert": true, "alignof": true, "__alignof__": true, "asm": true, "__asm__": true,
}

// FuncName extracts the function a definition header line names, as git's
// hunk Section or a column-0 line of C shows it: "static bool foo(struct x *y,"
// -> "foo"; "SYSCALL_DEFINE2(pipe2, int __user *, fildes, int, flags)" ->
// "sys_pipe2". It returns "" for lines that are not function headers
// (declarations ending in ';', initialisers, structs, preprocessor lines,
// comments, indented code).
func FuncName(line string) string {
	if line == "" {
		return ""
	}
	switch line[0] {
	case ' ', '\t', '#', '{', '}', '/', '*', '(', ')':
		return ""
	}
	t := line
	if i := strings.Index(t, "/*"); i >= 0 {
		t = t[:i]
	}
	if i := strings.Index(t, "//"); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	if strings.HasSuffix(t, ";") || strings.HasSuffix(t, ",") && !strings.Contains(t, "(") {
		return ""
	}
	open := strings.IndexByte(t, '(')
	if open <= 0 {
		return ""
	}
	if strings.ContainsAny(t[:open], "=;\"'") {
		return ""
	}
	end := open
	for end > 0 && t[end-1] == ' ' {
		end--
	}
	start := end
	for start > 0 && cscan.IsIdentChar(t[start-1]) {
		start--
	}
	name := t[start:end]
	if name == "" || !cscan.IsIdentStart(name[0]) || cKeywords[name] {
		return ""
	}
	if strings.HasPrefix(name, "SYSCALL_DEFINE") || strings.HasPrefix(name, "COMPAT_SYSCALL_DEFINE") {
		args := t[open+1:]
		if i := strings.IndexAny(args, ",)"); i > 0 {
			sys := strings.TrimSpace(args[:i])
			if sys != "" && cscan.IsIdentStart(sys[0]) {
				if strings.HasPrefix(name, "COMPAT_") {
					return "compat_sys_" + sys
				}
				return "sys_" + sys
			}
		}
		return ""
	}
	return name
}

// funcWalker attributes the lines of one side of a hunk to C functions in
// kernel style: definitions start at column 0, bodies open with a column-0
// '{' (or a header ending in '{') and close with a column-0 '}'.
type funcWalker struct {
	cur     string // function whose body we are in
	pending string // header seen, body not yet opened
}

// step returns the function line l belongs to and advances the state.
func (w *funcWalker) step(l string) string {
	switch {
	case strings.HasPrefix(l, "}"):
		f := w.cur
		w.cur, w.pending = "", ""
		return f
	case strings.HasPrefix(l, "{"):
		if w.pending != "" {
			w.cur, w.pending = w.pending, ""
		}
		return w.cur
	}
	if topLevelDeclaration(l) {
		// A prototype or variable declaration at column 0: the hunk is
		// among declarations, in no body, whatever its section says.
		w.cur, w.pending = "", ""
		return ""
	}
	if name := FuncName(l); name != "" && (w.cur == "" || w.pending != "" || looksLikeDefinition(l)) {
		if strings.HasSuffix(strings.TrimSpace(l), "{") {
			w.cur, w.pending = name, ""
		} else {
			w.cur, w.pending = "", name
			if strings.HasSuffix(strings.TrimSpace(l), ");") {
				w.pending = ""
			}
		}
		return name
	}
	if w.pending != "" {
		f := w.pending
		if strings.HasSuffix(strings.TrimSpace(stripComment(l)), ";") {
			// A prototype, not a definition.
			w.pending = ""
		}
		return f
	}
	return w.cur
}

// topLevelDeclaration is true for a complete declaration written at column
// 0 ("void f(struct x *p);", "extern int x;"): in kernel style a
// statement of a body is indented, so such a line is outside every body.
func topLevelDeclaration(l string) bool {
	if l == "" || !cscan.IsIdentStart(l[0]) {
		return false
	}
	t := strings.TrimSpace(stripComment(l))
	return strings.HasSuffix(t, ";") && !strings.HasPrefix(t, "return")
}

// looksLikeDefinition is true for a column-0 header line met while inside
// a function (the previous function's closing brace was not in the hunk):
// only lines that clearly start a definition switch functions.
func looksLikeDefinition(l string) bool {
	t := strings.TrimSpace(stripComment(l))
	return !strings.HasSuffix(t, ";") && (strings.HasSuffix(t, ")") || strings.HasSuffix(t, ",") || strings.HasSuffix(t, "{"))
}

func stripComment(l string) string {
	if i := strings.Index(l, "/*"); i >= 0 {
		l = l[:i]
	}
	if i := strings.Index(l, "//"); i >= 0 {
		l = l[:i]
	}
	return l
}

// sideBuilder accumulates one function's side across hunks.
type sideBuilder struct {
	lines   []string
	nums    []int
	changed []bool
}

func (b *sideBuilder) grow(n int) {
	b.lines = make([]string, 0, n)
	b.nums = make([]int, 0, n)
	b.changed = make([]bool, 0, n)
}

func (b *sideBuilder) add(text string, n int, changed bool) {
	b.lines = append(b.lines, text)
	b.nums = append(b.nums, n)
	b.changed = append(b.changed, changed)
}

func (b *sideBuilder) side(partial bool) Side {
	return Side{Text: strings.Join(b.lines, "\n"), Lines: b.nums, Changed: b.changed, Partial: partial}
}

// patchFuncs maps the hunks of C files to functions from the patch alone
// and returns the touched functions with partial sides. It also sets each
// hunk's Funcs.
func patchFuncs(files []*FileChange) []*FuncChange {
	var out []*FuncChange
	for _, f := range files {
		if f.IsBinary || !IsCSource(f.Path()) {
			continue
		}
		out = append(out, fileFuncsFromPatch(f, f.Hunks)...)
	}
	return out
}

type funcAcc struct {
	name     string
	old, new sideBuilder
	touched  bool
	oldSeen  bool
	newSeen  bool
	// hdrAdded/hdrDeleted: the definition header is an added/removed line.
	hdrAdded   bool
	hdrDeleted bool
}

// fileFuncsFromPatch builds FuncChanges for the given hunks of f.
func fileFuncsFromPatch(f *FileChange, hunks []*Hunk) []*FuncChange {
	byName := map[string]*funcAcc{}
	var order []*funcAcc
	hint := 0 // lines of the current hunk: a capacity hint for new sides
	get := func(name string) *funcAcc {
		a := byName[name]
		if a == nil {
			a = &funcAcc{name: name}
			a.old.grow(hint)
			a.new.grow(hint)
			byName[name] = a
			order = append(order, a)
		}
		return a
	}
	for _, h := range hunks {
		hint = len(h.Lines)
		sec := FuncName(h.Section)
		oldW := funcWalker{cur: sec}
		newW := funcWalker{cur: sec}
		var names []string
		seen := map[string]bool{}
		note := func(n string) {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		for _, l := range h.Lines {
			if l.Op != OpAdd {
				if fn := oldW.step(l.Text); fn != "" {
					a := get(fn)
					a.oldSeen = true
					a.old.add(l.Text, l.OldLine, l.Op == OpDel)
					if l.Op == OpDel && FuncName(l.Text) == fn {
						a.hdrDeleted = true
					}
					if l.Op == OpDel {
						a.touched = true
						note(fn)
					}
				}
			}
			if l.Op != OpDel {
				if fn := newW.step(l.Text); fn != "" {
					a := get(fn)
					a.newSeen = true
					a.new.add(l.Text, l.NewLine, l.Op == OpAdd)
					if l.Op == OpAdd && FuncName(l.Text) == fn {
						a.hdrAdded = true
					}
					if l.Op == OpAdd {
						a.touched = true
						note(fn)
					}
				}
			}
		}
		h.Funcs = names
	}
	var out []*FuncChange
	for _, a := range order {
		if !a.touched {
			continue
		}
		fc := &FuncChange{File: f.Path(), Name: a.name, Old: a.old.side(true), New: a.new.side(true)}
		fc.Added = f.IsNew || a.hdrAdded && !a.oldSeen
		fc.Deleted = f.IsDelete || a.hdrDeleted && !a.newSeen
		if fc.Added {
			fc.Old = Side{}
		}
		if fc.Deleted {
			fc.New = Side{}
		}
		out = append(out, fc)
	}
	return out
}

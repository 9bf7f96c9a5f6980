package sumstore

import (
	"bytes"
	"regexp"
	"slices"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A patch rescans whole files, but changes a few functions of them. The
// other functions of a rescanned file keep their text and only move: their
// stored summaries hold, with the lines they quote renumbered. pairFile
// finds them, so that the climb (settle) starts from the functions the
// patch really changed instead of from every function of the file, and a
// line shift alone no longer climbs through every caller whose chain
// passes through the file.
//
// The pairing is all or nothing per file: it holds when the old and the
// new text are equal once the changed functions are taken out of both
// (what lies between functions, such as declarations, macros and struct
// definitions, may change how a function body reads), but for lines that
// set a member of a static initializer to a function (".flush =
// tracing_buffers_flush,"): no body reads those, and the member's new
// implementations are a change of their own (changedMembers). Otherwise
// every function of the file stays a source, as without pairing.

// pairFile pairs the functions of rescanned file path (number i in the
// store; oldSrc and newSrc its text before and after the patch) with
// their new versions: same name, same rank among that name's
// definitions, same text. It records the unchanged functions in s.paired
// and s.pairedRef and the old-to-new numbering of the lines outside the
// changed functions in s.lines. It does nothing when the change is not
// confined to functions, or a text is unreadable.
func (v *View) pairFile(path string, i int, oldSrc, newSrc []byte) {
	s := v.sources
	root := v.ix.Underlying()
	nf := v.ix.File(path)
	if nf == nil {
		return
	}
	oldLines, newLines := splitLines(oldSrc), splitLines(newSrc)
	refs := root.FileRefs(i)
	olds := make([]*cscan.Func, len(refs))
	for k, ref := range refs {
		if olds[k] = root.FuncOf(ref); olds[k] == nil {
			return
		}
	}
	// The new definitions of each name, in file order.
	byName := map[string][]*cscan.Func{}
	for _, fn := range nf.Funcs {
		byName[fn.Name] = append(byName[fn.Name], fn)
	}
	count := map[string]int{}
	for _, fo := range olds {
		count[fo.Name]++
	}
	rank := map[string]int{}
	paired := map[int]*cscan.Func{} // old position -> new version
	usedNew := map[*cscan.Func]bool{}
	for k, fo := range olds {
		j := rank[fo.Name]
		rank[fo.Name]++
		if s.funcs[refs[k]] {
			continue // named like a patch function: a source
		}
		news := byName[fo.Name]
		if j >= len(news) || count[fo.Name] != len(news) {
			continue
		}
		fn := news[j]
		a, okA := span(oldLines, fo)
		b, okB := span(newLines, fn)
		if !okA || !okB || !slices.EqualFunc(a, b, bytes.Equal) {
			continue
		}
		paired[k] = fn
		usedNew[fn] = true
	}
	// Take every function out of both texts, with the declaration head
	// above a changed, added or deleted one ("static int" on a line of its
	// own); what remains, blank and comment lines aside, must be equal,
	// line for line.
	keepOld, keepNew := make([]bool, len(oldLines)), make([]bool, len(newLines))
	for k := range keepOld {
		keepOld[k] = true
	}
	for k := range keepNew {
		keepNew[k] = true
	}
	for k, fo := range olds {
		_, ok := paired[k]
		if !cut(keepOld, oldLines, fo, !ok) {
			return
		}
	}
	for _, fn := range nf.Funcs {
		if !cut(keepNew, newLines, fn, !usedNew[fn]) {
			return
		}
	}
	lines, consts, ok := v.alignRest(oldLines, newLines, keepOld, keepNew)
	if !ok || consts.dropped {
		// A constant the patch changes or deletes may be read through a
		// macro of another file (a private header's "#define POOL_MASK
		// MASK"): only added ones leave the functions paired.
		return
	}
	if readsConst(consts, newLines, nf.Funcs, usedNew) {
		return
	}
	// A paired function's lines move with it. One sharing a line with a
	// changed definition (several on one line) pairs nothing.
	for k, fn := range paired {
		fo, d := olds[k], fn.Start-olds[k].Start
		for l := fo.Start; l <= fo.End; l++ {
			if _, ok := lines[l]; ok {
				return
			}
			lines[l] = l + d
		}
	}
	for k, fo := range olds {
		if _, ok := paired[k]; ok {
			continue
		}
		for l := fo.Start; l <= fo.End; l++ {
			if _, ok := lines[l]; ok {
				return
			}
		}
	}
	s.lines[path] = lines
	for k, fn := range paired {
		s.paired[refs[k]] = fn
		s.pairedRef[fn] = refs[k]
	}
}

// alignRest numbers the old lines kept outside the functions (keepOld,
// comment lines aside) by the new ones (keepNew): they must be equal line
// for line, but for member initialisers to a function (funcInit) and
// constant macros (constDefine) the patch added, deleted or changed. It
// returns those macros (constLines), and reports false when the texts
// differ otherwise.
func (v *View) alignRest(oldLines, newLines [][]byte, keepOld, keepNew []bool) (map[int]int, *constLines, bool) {
	rest := func(lines [][]byte, keep []bool) []int {
		skip := commentLines(lines)
		var out []int
		for k := range lines {
			if keep[k] && !skip[k] {
				out = append(out, k)
			}
		}
		return out
	}
	ro, rn := rest(oldLines, keepOld), rest(newLines, keepNew)
	consts := &constLines{names: map[string]bool{}, defs: map[int]bool{}}
	isInit := func(line []byte) bool { return v.funcInit(line) || constDefine(line) != "" }
	lines := map[int]int{}
	a, b := 0, 0
	for a < len(ro) && b < len(rn) {
		ol, nl := oldLines[ro[a]], newLines[rn[b]]
		switch {
		case bytes.Equal(ol, nl):
			lines[ro[a]+1] = rn[b] + 1
			a++
			b++
		case a+1 < len(ro) && bytes.Equal(oldLines[ro[a+1]], nl) && isInit(ol):
			consts.noteOld(ol)
			a++ // deleted
		case b+1 < len(rn) && bytes.Equal(ol, newLines[rn[b+1]]) && isInit(nl):
			consts.noteNew(nl, rn[b])
			b++ // added
		case isInit(ol) && isInit(nl):
			consts.noteOld(ol)
			consts.noteNew(nl, rn[b])
			a++ // changed
			b++
		case isInit(nl):
			consts.noteNew(nl, rn[b])
			b++ // added before a line that changed too
		case isInit(ol):
			consts.noteOld(ol)
			a++ // deleted before a line that changed too
		default:
			return nil, nil, false
		}
	}
	for ; a < len(ro); a++ {
		if !isInit(oldLines[ro[a]]) {
			return nil, nil, false
		}
		consts.noteOld(oldLines[ro[a]])
	}
	for ; b < len(rn); b++ {
		if !isInit(newLines[rn[b]]) {
			return nil, nil, false
		}
		consts.noteNew(newLines[rn[b]], rn[b])
	}
	return lines, consts, true
}

// constLines are the constant macros a patch changed between the
// functions of a file: the names it defines in the new text, with the
// lines (0-based) of their definitions, and whether it dropped (deleted
// or changed) one of the old text.
type constLines struct {
	names   map[string]bool
	defs    map[int]bool
	dropped bool
}

// noteOld records an old line the new text lacks.
func (c *constLines) noteOld(line []byte) {
	c.dropped = c.dropped || constDefine(line) != ""
}

// noteNew records new line k the old text lacks.
func (c *constLines) noteNew(line []byte, k int) {
	if name := constDefine(line); name != "" {
		c.names[name] = true
		c.defs[k] = true
	}
}

// constDefineRe matches a one-line object-like macro whose value calls
// nothing ("#define FMODE_32BITHASH ((__force fmode_t)0x200)"): $1 the
// name, $2 the value.
var constDefineRe = regexp.MustCompile(`^\s*#\s*define\s+([A-Za-z_]\w*)(?:\s+(.*))?$`)

// callInValueRe matches a call in a macro's value: a name then "(".
var callInValueRe = regexp.MustCompile(`[A-Za-z_]\w*\s*\(`)

// constDefine returns the name of the constant macro line defines, ""
// when it defines none: a macro with parameters, one continued on the
// next line, or one whose value calls something (a lock, an allocation)
// may change what a summary holds.
func constDefine(line []byte) string {
	m := constDefineRe.FindSubmatch(bytes.TrimRight(line, " \t"))
	if m == nil || bytes.HasSuffix(m[2], []byte("\\")) || callInValueRe.Match(m[2]) {
		return ""
	}
	return string(m[1])
}

// readsConst reports whether a line of the new text outside its changed
// functions (fns but those paired), but for the constant macros' own
// definitions, names a constant macro the patch added: a paired function
// or another macro reads it, and a stored summary may not hold. The
// paired functions and the lines between functions read the same in the
// old text, so the new one is enough.
func readsConst(c *constLines, lines [][]byte, fns []*cscan.Func, paired map[*cscan.Func]bool) bool {
	if len(c.names) == 0 {
		return false
	}
	skip := map[int]bool{}
	for k := range c.defs {
		skip[k] = true
	}
	for _, fn := range fns {
		if !paired[fn] {
			for l := fn.Start - 1; l < fn.End; l++ {
				skip[l] = true
			}
		}
	}
	for k, line := range lines {
		if skip[k] {
			continue
		}
		for _, w := range wordRe.FindAll(line, -1) {
			if c.names[string(w)] {
				return true
			}
		}
	}
	return false
}

// wordRe matches an identifier.
var wordRe = regexp.MustCompile(`[A-Za-z_]\w*`)

// funcInitRe is a line of a designated initialiser setting a member to
// a function or NULL (".release = tracing_buffers_release,"): $1 the
// value.
var funcInitRe = regexp.MustCompile(`^\s*\.[A-Za-z_]\w*\s*=\s*&?([A-Za-z_]\w*)\s*,?\s*(?:/\*.*\*/\s*)?$`)

// funcInit reports whether line sets a member of an initialiser to NULL
// or to a function defined before or after the patch (anywhere in the
// tree: a data member set to a variable named like some function counts
// too; the member's assignments, which changedMembers compares, are the
// index's reading of the line either way).
func (v *View) funcInit(line []byte) bool {
	m := funcInitRe.FindSubmatch(line)
	if m == nil {
		return false
	}
	name := string(m[1])
	return name == "NULL" || len(v.ix.Underlying().Funcs(name)) > 0 || len(v.ix.Funcs(name)) > 0
}

// span returns the lines of fn's definition, from its name to its closing
// brace.
func span(lines [][]byte, fn *cscan.Func) ([][]byte, bool) {
	if fn.Start < 1 || fn.End < fn.Start || fn.End > len(lines) {
		return nil, false
	}
	return lines[fn.Start-1 : fn.End], true
}

// cut marks fn's lines as not kept, and with head the lines of its
// declaration above its name; false when fn has no valid span.
func cut(keep []bool, lines [][]byte, fn *cscan.Func, head bool) bool {
	if fn.Start < 1 || fn.End < fn.Start || fn.End > len(keep) {
		return false
	}
	first := fn.Start - 1
	for head && first > 0 && declHead.Match(lines[first-1]) {
		first--
	}
	for l := first; l < fn.End; l++ {
		keep[l] = false
	}
	return true
}

// declHead matches a line that can only be the start of the declaration
// below it: words and stars ("static int", "static void __init").
var declHead = regexp.MustCompile(`^[A-Za-z_][\w\s*]*$`)

// commentLines marks the lines holding nothing but blanks and comments
// (string and character literals are skipped, so a "/*" in one opens no
// comment).
func commentLines(lines [][]byte) []bool {
	out := make([]bool, len(lines))
	inComment := false
	for i, line := range lines {
		code := false
		for j := 0; j < len(line); j++ {
			c := line[j]
			switch {
			case inComment:
				if c == '*' && j+1 < len(line) && line[j+1] == '/' {
					inComment = false
					j++
				}
			case c == '/' && j+1 < len(line) && line[j+1] == '*':
				inComment = true
				j++
			case c == '/' && j+1 < len(line) && line[j+1] == '/':
				j = len(line)
			case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			case c == '"' || c == '\'':
				code = true
				for j++; j < len(line) && line[j] != c; j++ {
					if line[j] == '\\' {
						j++
					}
				}
			default:
				code = true
			}
		}
		out[i] = !code
	}
	return out
}

// splitLines splits src into lines without their newlines.
func splitLines(src []byte) [][]byte {
	lines := bytes.Split(src, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	return lines
}

package diffcheck

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// ApplyTree applies the patch in cs to tree in memory (tree is never
// written) and switches cs to tree mode: cs.Tree becomes a *PatchedTree
// (patched bytes for touched files, tree for the rest), hunk line numbers
// are rewritten to the tree's (hunks may apply at an offset, like git
// apply), and cs.Funcs is rebuilt from the real function boundaries found
// by cscan in the old and new file text, with full Old/New sides.
//
// A file whose hunks do not all apply keeps the tree's content in cs.Tree;
// its touched functions get the hunks' post-image as New (Partial) and the
// tree's version as Old. cs.ApplyError says so and cs.ApplyErrors name the
// diff lines (whitespace damage is recognised). Such conflicts are not
// errors of ApplyTree, which fails only when it cannot run at all.
//
// When tree is a *PatchedTree (the previous patch of a series) the patches
// stack.
func ApplyTree(cs *ChangeSet, tree Tree) error {
	if cs == nil || tree == nil {
		return errors.New("diffcheck: ApplyTree needs a change set and a tree")
	}
	pt := NewPatchedTree(tree)
	var funcs []*FuncChange
	var msgs []string
	for _, f := range cs.Files {
		ff, err := applyFile(pt, f)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				de = &Error{Err: err}
			}
			de.File = f.Path()
			cs.ApplyErrors = append(cs.ApplyErrors, de)
			msgs = append(msgs, fmt.Sprintf("%s: %v", f.Path(), de))
		}
		funcs = append(funcs, ff...)
	}
	cs.Funcs = funcs
	cs.Tree = pt
	for _, f := range cs.Files {
		if len(f.restored) > 0 {
			cs.Recovered = true
			cs.Notes = append(cs.Notes, fmt.Sprintf("%s: %s: white space of %s restored from the tree (the hunks matched it only with white space ignored)",
				RecoveredNote, f.Path(), strings.Join(f.restored, ", ")))
		}
	}
	if len(msgs) > 0 {
		cs.ApplyError = "patch does not apply cleanly to " + TreeName(tree) + " (hunks' post-image used for the touched functions, the rest from the tree): " + strings.Join(msgs, "; ")
	}
	return nil
}

// applyFile applies one file diff to pt and returns its touched functions.
// On a conflict pt keeps the file unchanged and the error names the line.
func applyFile(pt *PatchedTree, f *FileChange) ([]*FuncChange, error) {
	var old []byte
	if !f.IsNew {
		b, err := pt.ReadFile(f.OldPath)
		if err != nil {
			return fallbackFuncs(pt, f, nil), &Error{Line: firstLine(f), Err: fmt.Errorf("%s is not in the tree: %w", f.OldPath, err)}
		}
		old = b
	} else if _, err := pt.ReadFile(f.NewPath); err == nil {
		return fallbackFuncs(pt, f, nil), &Error{Line: firstLine(f), Err: fmt.Errorf("new file %s already exists in the tree", f.NewPath)}
	}

	var out []byte
	switch {
	case f.IsBinary && !f.HasBinaryData:
		return nil, errors.New("binary change without data (\"Binary files differ\"): not applied")
	case f.IsBinary:
		var buf bytes.Buffer
		if err := gitdiff.Apply(&buf, bytes.NewReader(old), f.file, gitdiff.WithMaxBinaryFragmentBytes(MaxTreeFileSize)); err != nil {
			return nil, fmt.Errorf("binary patch does not apply: %w", err)
		}
		out = buf.Bytes()
	case len(f.Hunks) == 0:
		out = old // rename, copy or mode change only
	default:
		b, err := applyHunks(old, f)
		if err != nil {
			return fallbackFuncs(pt, f, old), err
		}
		out = b
	}

	switch {
	case f.IsDelete:
		pt.remove(f.OldPath)
	case f.IsRename:
		pt.remove(f.OldPath)
		pt.set(f.NewPath, out)
	default:
		pt.set(f.NewPath, out)
	}
	if f.IsBinary || !IsCSource(f.Path()) {
		return nil, nil
	}
	return treeFuncs(f, old, out), nil
}

func firstLine(f *FileChange) int {
	if len(f.Hunks) > 0 {
		return f.Hunks[0].DiffLine
	}
	return 0
}

// splitKeep splits b into lines keeping their newlines.
func splitKeep(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// applyHunks applies f's hunks to old, each at its position or the nearest
// offset where its pre-image matches (like git apply without fuzz), using
// go-gitdiff's TextApplier on shifted fragments. On success the hunks'
// line numbers are rewritten to the tree's.
func applyHunks(old []byte, f *FileChange) ([]byte, error) {
	src := splitKeep(old)
	type placed struct {
		h     *Hunk
		start int // 0-based old line where the pre-image starts
	}
	var plan []placed
	next := 0
	hunks := append([]*Hunk(nil), f.Hunks...)
	sort.SliceStable(hunks, func(i, j int) bool { return hunks[i].OldStart < hunks[j].OldStart })
	for _, h := range hunks {
		pre := preimage(h.frag)
		want := h.OldStart - 1
		if h.OldLines == 0 {
			want = h.OldStart
		}
		// Clamp: hostile hunk headers may name any line.
		want = max(0, min(want, len(src)))
		at := findPreimage(src, pre, want, next)
		if at < 0 {
			// Like "git apply --ignore-whitespace": a pre-image that
			// matches with white space ignored (a mail client turned
			// tabs into spaces) takes the tree's text.
			if at = findLoose(src, pre, want, next); at >= 0 {
				restoreFromTree(f, h, src, at)
				pre = preimage(h.frag)
			}
		}
		if at < 0 {
			return nil, conflictError(f, h, src, pre, want)
		}
		plan = append(plan, placed{h, at})
		next = at + len(pre)
	}
	var buf bytes.Buffer
	buf.Grow(len(old) + len(old)/8)
	a := gitdiff.NewTextApplier(&buf, bytes.NewReader(old))
	shift := 0 // new - old line delta so far
	for _, p := range plan {
		frag := *p.h.frag
		// go-gitdiff inserts a zero-line pre-image before OldPosition-1;
		// p.start is already the insertion index, so +1 fits both cases.
		frag.OldPosition = int64(p.start + 1)
		frag.NewPosition = frag.OldPosition + int64(shift)
		if err := a.ApplyFragment(&frag); err != nil {
			return nil, &Error{Line: p.h.DiffLine, Err: fmt.Errorf("hunk %s: %w", p.h.Header(), err)}
		}
		offset := p.start - (p.h.OldStart - 1)
		if p.h.OldLines == 0 {
			offset = p.start - p.h.OldStart
		}
		p.h.Offset = offset
		p.h.Applied = true
		renumber(p.h, p.start+1, p.start+1+shift)
		shift += p.h.NewLines - p.h.OldLines
	}
	if err := a.Close(); err != nil {
		return nil, fmt.Errorf("apply: %w", err)
	}
	return buf.Bytes(), nil
}

// renumber rewrites a hunk's line numbers for a pre-image at old line
// oldStart and post-image at new line newStart (1-based).
func renumber(h *Hunk, oldStart, newStart int) {
	o, n := oldStart, newStart
	for i := range h.Lines {
		l := &h.Lines[i]
		switch l.Op {
		case OpContext:
			l.OldLine, l.NewLine = o, n
			o++
			n++
		case OpDel:
			l.OldLine = o
			o++
		case OpAdd:
			l.NewLine = n
			n++
		}
	}
	if h.OldLines > 0 {
		h.OldStart = oldStart
	} else {
		h.OldStart = oldStart - 1
	}
	if h.NewLines > 0 {
		h.NewStart = newStart
	} else {
		h.NewStart = newStart - 1
	}
}

func preimage(frag *gitdiff.TextFragment) []string {
	var pre []string
	for _, l := range frag.Lines {
		if l.Old() {
			pre = append(pre, l.Line)
		}
	}
	return pre
}

// findPreimage returns the 0-based line at or after min where pre matches
// src exactly, nearest to want first; -1 if nowhere.
func findPreimage(src [][]byte, pre []string, want, min int) int {
	match := func(at int) bool {
		if at < min || at+len(pre) > len(src) {
			return false
		}
		for i, l := range pre {
			if string(src[at+i]) != l {
				return false
			}
		}
		return true
	}
	if len(pre) == 0 {
		if want >= min && want <= len(src) {
			return want
		}
		return -1
	}
	for d := 0; want-d >= min || want+d < len(src); d++ {
		if match(want + d) {
			return want + d
		}
		if d > 0 && match(want-d) {
			return want - d
		}
	}
	return -1
}

// conflictError explains why a hunk does not apply, naming the diff line:
// whitespace damage when the pre-image matches with whitespace ignored,
// else the first line that differs from the tree at the expected place.
func conflictError(f *FileChange, h *Hunk, src [][]byte, pre []string, want int) error {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	preLines := oldSideLines(h)
	// Whitespace-insensitive search.
	for at := 0; at+len(pre) <= len(src); at++ {
		ok := true
		first := -1
		for i, l := range pre {
			if norm(string(src[at+i])) != norm(l) {
				ok = false
				break
			}
			if first < 0 && string(src[at+i]) != l {
				first = i
			}
		}
		if ok && first >= 0 {
			return &Error{Line: preLines[first].DiffLine, Err: fmt.Errorf(
				"hunk %s: line differs from %s:%d only in whitespace: the patch is whitespace-damaged (tabs turned into spaces?)",
				h.Header(), f.OldPath, at+first+1)}
		}
	}
	// Report the first mismatch where most of the pre-image matches
	// (nearest to the expected position on ties).
	best, bestN := want, -1
	if len(src) <= 200000 {
		for at := 0; at+len(pre) <= len(src); at++ {
			n := 0
			for i, l := range pre {
				if string(src[at+i]) == l {
					n++
				}
			}
			if n > bestN || n == bestN && abs(at-want) < abs(best-want) {
				best, bestN = at, n
			}
		}
	}
	for i, l := range pre {
		at := best + i
		if at >= len(src) {
			return &Error{Line: preLines[i].DiffLine, Err: fmt.Errorf("hunk %s does not apply: %s has only %d lines", h.Header(), f.OldPath, len(src))}
		}
		if string(src[at]) != l {
			return &Error{Line: preLines[i].DiffLine, Err: fmt.Errorf("hunk %s does not apply: context %s not found (%s:%d has %s)",
				h.Header(), quoteLine(l), f.OldPath, at+1, quoteLine(string(src[at])))}
		}
	}
	return &Error{Line: h.DiffLine, Err: fmt.Errorf("hunk %s does not apply to %s", h.Header(), f.OldPath)}
}

// oldSideLines returns the hunk's context and removed lines.
func oldSideLines(h *Hunk) []Line {
	var out []Line
	for _, l := range h.Lines {
		if l.Op != OpAdd {
			out = append(out, l)
		}
	}
	return out
}

// treeFuncs maps the applied hunks of f to the functions cscan finds in the
// old and new text and returns them with full sides.
func treeFuncs(f *FileChange, old, new []byte) []*FuncChange {
	var oldScan, newScan *cscan.File
	if old != nil {
		oldScan = cscan.ParseFile(f.OldPath, old)
	}
	if new != nil && !f.IsDelete {
		newScan = cscan.ParseFile(f.NewPath, new)
	}
	oldLines := splitText(old)
	newLines := splitText(new)
	delSet := map[int]bool{}
	addSet := map[int]bool{}
	type key struct {
		name string
		nth  int
	}
	var order []key
	seen := map[key]bool{}
	touch := func(k key) {
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	for _, h := range f.Hunks {
		var names []string
		hs := map[string]bool{}
		for _, l := range h.Lines {
			var fn *cscan.Func
			var nth int
			switch l.Op {
			case OpAdd:
				addSet[l.NewLine] = true
				fn, nth = funcAt(newScan, l.NewLine)
			case OpDel:
				delSet[l.OldLine] = true
				fn, nth = funcAt(oldScan, l.OldLine)
			default:
				continue
			}
			if fn == nil {
				continue
			}
			touch(key{fn.Name, nth})
			if !hs[fn.Name] {
				hs[fn.Name] = true
				names = append(names, fn.Name)
			}
		}
		h.Funcs = names
	}
	var out []*FuncChange
	for _, k := range order {
		fc := &FuncChange{File: f.Path(), Name: k.name}
		if fn := nthFunc(oldScan, k.name, k.nth); fn != nil {
			fc.Old = fullSide(oldLines, fn, delSet)
		} else {
			fc.Added = true
		}
		if fn := nthFunc(newScan, k.name, k.nth); fn != nil {
			fc.New = fullSide(newLines, fn, addSet)
		} else {
			fc.Deleted = true
		}
		out = append(out, fc)
	}
	return out
}

// splitText splits file text into lines without newlines.
func splitText(b []byte) []string {
	if b == nil {
		return nil
	}
	return splitLines(string(b))
}

// funcAt returns the function whose definition (header to closing brace)
// holds line n, and its occurrence index among functions of that name.
func funcAt(f *cscan.File, n int) (*cscan.Func, int) {
	if f == nil {
		return nil, 0
	}
	count := map[string]int{}
	for _, fn := range f.Funcs {
		if n >= fn.Start && n <= fn.End {
			return fn, count[fn.Name]
		}
		count[fn.Name]++
	}
	return nil, 0
}

func nthFunc(f *cscan.File, name string, nth int) *cscan.Func {
	if f == nil {
		return nil
	}
	var last *cscan.Func
	for _, fn := range f.Funcs {
		if fn.Name == name {
			if nth == 0 {
				return fn
			}
			nth--
			last = fn
		}
	}
	return last
}

func fullSide(lines []string, fn *cscan.Func, changed map[int]bool) Side {
	var s Side
	var b strings.Builder
	for n := fn.Start; n <= fn.End && n <= len(lines); n++ {
		if n > fn.Start {
			b.WriteByte('\n')
		}
		b.WriteString(lines[n-1])
		s.Lines = append(s.Lines, n)
		s.Changed = append(s.Changed, changed[n])
	}
	s.Text = b.String()
	return s
}

// fallbackFuncs returns the touched functions of a file that did not apply:
// New is the hunks' post-image (partial), Old the tree's version of the
// function when the tree has it (the hunks' pre-image then is Preimage),
// else the hunks' pre-image.
func fallbackFuncs(pt *PatchedTree, f *FileChange, old []byte) []*FuncChange {
	if f.IsBinary || !IsCSource(f.Path()) {
		return nil
	}
	funcs := fileFuncsFromPatch(f, f.Hunks)
	if old == nil {
		return funcs
	}
	scan := cscan.ParseFile(f.OldPath, old)
	lines := splitText(old)
	for _, fc := range funcs {
		if fn := nthFunc(scan, fc.Name, 0); fn != nil {
			fc.Preimage = fc.Old
			fc.Old = fullSide(lines, fn, nil)
			fc.Added = false
		}
	}
	return funcs
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// quoteLine quotes a source line for an error message.
func quoteLine(l string) string {
	l = strings.TrimSuffix(l, "\n")
	if strings.TrimSpace(l) == "" {
		return "(empty line)"
	}
	return strconv.Quote(l)
}

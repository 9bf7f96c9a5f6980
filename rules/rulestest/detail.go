package rulestest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A detail line, indented under a WANT line, says more about the finding
// that line stands for:
//
//	at FILE[:LINE]        the finding is in FILE (at LINE; without one, at a line)
//	message TEXT          its message holds TEXT
//	explanation TEXT      its explanation holds TEXT
//	evidence TEXT         one of its evidence lines holds TEXT
//	evidence[N] TEXT      its evidence line N (from 0) holds TEXT
//	old TEXT              its old lines, one "old" detail line each, in order
//	step FUNC [[FILE]:LINE] [TEXT]
//	                      a step of its chain is in FUNC (at FILE:LINE, or
//	                      at LINE of any file) and its What holds TEXT
//	                      (begins with it when TEXT begins with "^")
//	step[N] ...           chain step N is (from 0; -1 is the last step)
//	needs-tree            it says it needs a tree
//	located               every step of its chain has a file and a line
//
// A leading "!" negates a line: "!evidence TEXT" says no evidence line
// holds TEXT, "!step FUNC" that no step is in FUNC ("at" and "old" cannot
// be negated). The WANT lines with details are matched to distinct
// findings of their line that satisfy every detail.
type detail struct {
	src   string // the line as written, without its indent
	neg   bool
	kind  string
	index *int // the element the line is about (from the end when < 0); nil for any
	text  string
	fn    string // a step's function
	file  string // "at" and a step's file
	line  int    // "at" and a step's line; 0 for any
}

// parseDetail parses one detail line.
func parseDetail(l string) (detail, error) {
	s := strings.TrimSpace(l)
	d := detail{src: s}
	if strings.HasPrefix(s, "!") {
		d.neg, s = true, s[1:]
	}
	word, rest, _ := strings.Cut(s, " ")
	rest = strings.TrimSpace(rest)
	if i := strings.Index(word, "["); i > 0 && strings.HasSuffix(word, "]") {
		n, err := strconv.Atoi(word[i+1 : len(word)-1])
		if err != nil {
			return d, fmt.Errorf("bad index in detail line %q", l)
		}
		d.index, word = &n, word[:i]
		if word != "evidence" && word != "step" {
			return d, fmt.Errorf("detail line %q: only evidence and step take an index", l)
		}
	}
	d.kind = word
	var err error
	switch word {
	case "at":
		d.file, d.line, err = parseAt(rest)
	case "message", "explanation", "evidence", "old":
		d.text = rest
		if rest == "" {
			err = fmt.Errorf("no text")
		}
	case "step":
		d.fn, rest, _ = strings.Cut(rest, " ")
		loc, text, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if file, line, ok := parseLoc(loc); ok {
			d.file, d.line, rest = file, line, text
		}
		d.text = strings.TrimSpace(rest)
		if d.fn == "" {
			err = fmt.Errorf("no function")
		}
	case "needs-tree", "located":
		if rest != "" {
			err = fmt.Errorf("%s takes no text", word)
		}
	default:
		err = fmt.Errorf("unknown detail %q", word)
	}
	if err == nil && d.neg && (word == "at" || word == "old") {
		err = fmt.Errorf("%s cannot be negated", word)
	}
	if err != nil {
		return d, fmt.Errorf("detail line %q: %w", l, err)
	}
	return d, nil
}

// parseAt reads "FILE" or "FILE:LINE".
func parseAt(s string) (string, int, error) {
	if s == "" || strings.Contains(s, " ") {
		return "", 0, fmt.Errorf("want FILE[:LINE]")
	}
	if file, line, ok := parseLoc(s); ok && file != "" {
		return file, line, nil
	}
	return s, 0, nil
}

// parseLoc reads "[FILE]:LINE".
func parseLoc(s string) (string, int, bool) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return s[:i], n, true
}

// holds reports whether the detail line is true of f ("old" lines are
// checked together, by oldLinesHold).
func (d detail) holds(f report.Finding) bool {
	return d.matches(f) != d.neg
}

func (d detail) matches(f report.Finding) bool {
	switch d.kind {
	case "at":
		return f.File == d.file && (d.line == f.Line || d.line == 0 && f.Line > 0)
	case "message":
		return strings.Contains(f.Message, d.text)
	case "explanation":
		return strings.Contains(f.Explanation, d.text)
	case "evidence":
		return anyAt(len(f.Evidence), d.index, func(i int) bool { return strings.Contains(f.Evidence[i], d.text) })
	case "step":
		return anyAt(len(f.Chain), d.index, func(i int) bool { return d.stepMatches(f.Chain[i]) })
	case "needs-tree":
		return f.NeedsTree
	case "located":
		for _, s := range f.Chain {
			if s.File == "" || s.Line <= 0 {
				return false
			}
		}
		return true
	}
	return true
}

func (d detail) stepMatches(s report.Step) bool {
	what := strings.Contains(s.What, d.text)
	if strings.HasPrefix(d.text, "^") {
		what = strings.HasPrefix(s.What, d.text[1:])
	}
	return s.Func == d.fn && (d.file == "" || s.File == d.file) && (d.line == 0 || s.Line == d.line) && what
}

// anyAt reports whether ok holds for element index of n elements (from
// the end when negative), or for any of them when index is nil.
func anyAt(n int, index *int, ok func(int) bool) bool {
	if index != nil {
		i := *index
		if i < 0 {
			i += n
		}
		return i >= 0 && i < n && ok(i)
	}
	for i := 0; i < n; i++ {
		if ok(i) {
			return true
		}
	}
	return false
}

// failures returns the detail lines of w that f does not satisfy.
func (w *want) failures(f report.Finding) []string {
	var bad, olds []string
	for _, d := range w.details {
		if d.kind == "old" {
			olds = append(olds, d.text)
		} else if !d.holds(f) {
			bad = append(bad, d.src)
		}
	}
	if len(olds) > 0 && !oldLinesHold(f.Old, olds) {
		bad = append(bad, fmt.Sprintf("old lines %q (the finding's: %q)", olds, f.Old))
	}
	return bad
}

// oldLinesHold reports whether old has one line per text, each holding
// it, in order.
func oldLinesHold(old, texts []string) bool {
	if len(old) != len(texts) {
		return false
	}
	for i, s := range texts {
		if !strings.Contains(old[i], s) {
			return false
		}
	}
	return true
}

// checkDetails matches the WANT lines of mode that have details to
// distinct findings of their line satisfying them, and returns what could
// not be matched.
func (c *Case) checkDetails(mode string, fs []report.Finding) []string {
	var ws []*want
	for _, w := range c.wants {
		if len(w.details) > 0 && (w.mode == "" || w.mode == mode) {
			ws = append(ws, w)
		}
	}
	lines := make([]string, len(fs))
	for i, f := range fs {
		lines[i] = WantLine(f)
	}
	ok := func(wi, fi int) bool { return lines[fi] == ws[wi].line && len(ws[wi].failures(fs[fi])) == 0 }
	owner := make([]int, len(fs)) // the want a finding is matched to, -1 for none
	for i := range owner {
		owner[i] = -1
	}
	var errs []string
	for wi, w := range ws {
		if augment(wi, len(fs), ok, owner, make([]bool, len(fs))) {
			continue
		}
		msg := fmt.Sprintf("no finding for WANT %s with its details", w.line)
		for fi, f := range fs {
			if lines[fi] == w.line {
				msg += fmt.Sprintf("\n  %s:%d fails: %s", f.File, f.Line, strings.Join(w.failures(f), "; "))
			}
		}
		errs = append(errs, msg)
	}
	return errs
}

// augment looks for an augmenting path from want wi in the matching of
// wants to findings (owner), as in Kuhn's algorithm.
func augment(wi, n int, ok func(wi, fi int) bool, owner []int, seen []bool) bool {
	for fi := 0; fi < n; fi++ {
		if seen[fi] || !ok(wi, fi) {
			continue
		}
		seen[fi] = true
		if owner[fi] < 0 || augment(owner[fi], n, ok, owner, seen) {
			owner[fi] = wi
			return true
		}
	}
	return false
}

// checkNotes returns the NOTE lines of mode that notes do not satisfy.
func (c *Case) checkNotes(mode string, notes []string) []string {
	var errs []string
	for _, n := range c.notes {
		if n.mode != "" && n.mode != mode {
			continue
		}
		found := false
		for _, s := range notes {
			found = found || strings.Contains(s, n.text)
		}
		all := "(no notes)"
		if len(notes) > 0 {
			all = strings.Join(notes, "\n  ")
		}
		switch {
		case found && n.neg:
			errs = append(errs, fmt.Sprintf("a note holds %q:\n  %s", n.text, all))
		case !found && !n.neg:
			errs = append(errs, fmt.Sprintf("no note holds %q:\n  %s", n.text, all))
		}
	}
	return errs
}

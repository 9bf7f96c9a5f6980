package lockctx

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Contexts a function's kernel-doc states.
//
// The kernel documents where a function may be called in the "Context:"
// section of its kernel-doc comment (Documentation/doc-guide/kernel-doc.rst):
// "Context: Any context.", "Context: Interrupt context.", "Context: irqs
// blocked, controller lock held". A function documented to be callable
// from interrupts, or in any context, must not sleep whatever callers the
// tree shows today: it runs in the context its documentation promises. A
// section that also allows sleeping ("Any context that permits to
// sleep", "May sleep if @gfp flags permit"), that keeps atomic callers
// out ("not suitable from atomic context", "!in_interrupt()") or that
// depends on a condition is left out (DocContext.Unless).

// DocContext is the "doc_context" section of a family's table: the
// phrases of a kernel-doc "Context:" section that put its function in an
// atomic context.
type DocContext struct {
	// Atomic are the phrases (regular expressions, matched against the
	// section's text ignoring case) with the context kind they state.
	Atomic []DocPhrase `yaml:"atomic"`
	// Unless are the phrases that lift the section.
	Unless []string `yaml:"unless"`
	// Callable are the phrases (regular expressions, case-insensitive)
	// of a sentence in the body of a kernel-doc comment without a
	// "Context:" section that say where its function may be called
	// ("This routine may be called in interrupt context."): such a
	// sentence is read as the section would be.
	Callable []string `yaml:"callable"`
	// Member are the phrases (regular expressions, case-insensitive) of
	// a sentence in a struct member's kernel-doc description that say
	// the function put there must not sleep ("Must be atomic."), read
	// with Callable ones (memberdoc.go).
	Member []string `yaml:"member"`
	// Stale lists struct members ("gpio_chip.to_irq") whose kernel-doc
	// the code no longer keeps: their description is not read.
	Stale []string `yaml:"stale"`
	// Others are the phrases that, before a callable phrase in its
	// sentence, make something else its subject ("@ctor is called in
	// atomic context", "the callback can be called from irq context").
	Others []string `yaml:"others"`
}

// DocPhrase is one phrase of DocContext.Atomic.
type DocPhrase struct {
	// Match is the regular expression (case-insensitive), Kind the
	// atomic context kind the phrase states.
	Match string `yaml:"match"`
	Kind  string `yaml:"kind"`
}

// docRules is the compiled DocContext.
type docRules struct {
	atomic   []docRule
	unless   []*regexp.Regexp
	callable []*regexp.Regexp
	member   []*regexp.Regexp // the member phrases, then the callable ones
	others   []*regexp.Regexp
	stale    []string
}

// docRule is one compiled DocPhrase.
type docRule struct {
	re   *regexp.Regexp
	kind string
}

// compileDoc compiles t; kinds must be atomic context kinds.
func compileDoc(t DocContext) (docRules, error) {
	var d docRules
	for _, p := range t.Atomic {
		re, err := regexp.Compile("(?i)" + p.Match)
		if err != nil {
			return d, fmt.Errorf("doc_context: %q: %w", p.Match, err)
		}
		if !Kinds[p.Kind] {
			return d, fmt.Errorf("doc_context: %q: kind %q is no atomic context kind", p.Match, p.Kind)
		}
		d.atomic = append(d.atomic, docRule{re, p.Kind})
	}
	for _, l := range []struct {
		what string
		src  []string
		dst  *[]*regexp.Regexp
	}{{"unless", t.Unless, &d.unless}, {"callable", t.Callable, &d.callable}, {"member", t.Member, &d.member}, {"others", t.Others, &d.others}} {
		for _, p := range l.src {
			re, err := regexp.Compile("(?i)" + p)
			if err != nil {
				return d, fmt.Errorf("doc_context: %s %q: %w", l.what, p, err)
			}
			*l.dst = append(*l.dst, re)
		}
	}
	d.member = append(d.member, d.callable...)
	d.stale = t.Stale
	return d, nil
}

// states reports whether a sentence states a context (classify).
func (d docRules) states(text string) bool { return d.classify(text) != "" }

// classify returns the context kind a "Context:" section's text states,
// "" when it states none or is lifted.
func (d docRules) classify(text string) string {
	for _, u := range d.unless {
		if u.MatchString(text) {
			return ""
		}
	}
	for _, a := range d.atomic {
		if a.re.MatchString(text) {
			return a.kind
		}
	}
	return ""
}

// docSection is a "Context:" section (or a callable sentence): its text
// and the line it starts on.
type docSection struct {
	text string
	line int
	// sentence: the text is a sentence of the comment's body, not a
	// "Context:" section; subject is the function the sentence starts
	// with as its subject (subjectName): a sentence about another
	// function says nothing of this one.
	sentence bool
	subject  string
	// heads is how many lines right after the comment can belong to the
	// head of a declaration (declHeadLine, at most 3): the function
	// whose name is on one of them, or just after, is the one described.
	heads int
}

// docContexts returns the "Context:" sections of file's comments, by the
// line their comment ends on (cached per file of the view).
func (r *Resolver) docContexts(file string) map[int]docSection {
	v := r.fileMemo("lockctx.doccontext:"+file, file, func() any {
		src, err := r.ix.ReadFile(file)
		if err != nil || !bytes.Contains(src, []byte("Context:")) && (len(r.m.doc.callable) == 0 || !bytes.Contains(src, []byte("/**"))) {
			return map[int]docSection(nil)
		}
		return scanDocContexts(src, r.m.doc)
	})
	m, _ := v.(map[int]docSection)
	return m
}

// scanDocContexts finds the "Context:" sections of src's comments: the
// text from "Context:" to the section's end (a blank comment line,
// another section, the comment's end), keyed by the comment's last line.
// A kernel-doc comment ("/**") without one gives the first sentence of
// its text that a callable phrase matches instead.
func scanDocContexts(src []byte, d docRules) map[int]docSection {
	out := map[int]docSection{}
	lines := strings.Split(string(src), "\n")
	var cur *docSection
	var doc *docText
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "/**") && len(d.callable) > 0 {
			doc = &docText{}
		}
		if doc != nil {
			doc.add(l, i+1)
			if strings.Contains(l, "*/") {
				if sec, ok := doc.callable(d); ok {
					out[i+1] = sec
				}
				doc = nil
			}
		}
		t := strings.TrimSpace(l)
		opens := strings.HasPrefix(t, "/*")
		inComment := opens || strings.HasPrefix(t, "*") && !strings.HasPrefix(t, "*/")
		body := strings.TrimSuffix(t, "*/")
		for _, p := range []string{"/**", "/*", "*"} {
			if strings.HasPrefix(body, p) {
				body = body[len(p):]
				break
			}
		}
		body = strings.TrimSpace(body)
		switch {
		case cur != nil && strings.Contains(t, "*/"):
			if body != "" && !docSectionStart(body) {
				cur.text += " " + body
			}
			out[i+1] = *cur
			cur = nil
		case cur != nil && (!inComment || body == "" || docSectionStart(body)):
			// The section ended; the comment has not.
			sec := *cur
			cur = nil
			for j := i; j < len(lines) && j < i+40; j++ {
				if strings.Contains(lines[j], "*/") {
					out[j+1] = sec
					break
				}
			}
		case cur != nil:
			cur.text += " " + body
		}
		if inComment && strings.HasPrefix(body, "Context:") {
			doc = nil // the section is the comment's word
			cur = &docSection{text: strings.TrimSpace(strings.TrimPrefix(body, "Context:")), line: i + 1}
			if strings.Contains(t, "*/") {
				out[i+1] = *cur
				cur = nil
			}
		}
	}
	for end, sec := range out {
		for sec.heads < 3 && declHeadLine(lines, end+sec.heads+1) {
			sec.heads++
		}
		out[end] = sec
	}
	return out
}

// docText collects a kernel-doc comment's text with the line each part
// starts on.
type docText struct {
	text  strings.Builder
	lines []int // per byte offset of a line's start in text: its line
	offs  []int
}

// add appends source line l (line n) of the comment.
func (d *docText) add(l string, n int) {
	t := strings.TrimSpace(l)
	t = strings.TrimSuffix(t, "*/")
	for _, p := range []string{"/**", "*"} {
		if strings.HasPrefix(t, p) {
			t = t[len(p):]
			break
		}
	}
	t = strings.TrimSpace(t)
	if t == "" {
		// A blank comment line ends a paragraph: a sentence does not
		// run on across it.
		t = "."
	}
	d.offs = append(d.offs, d.text.Len())
	d.lines = append(d.lines, n)
	d.text.WriteString(t)
	d.text.WriteByte(' ')
}

// callable returns the first sentence of the comment that a callable
// phrase of rules matches, with no other subject before it, as a section
// starting on the sentence's line.
func (d *docText) callable(rules docRules) (docSection, bool) {
	return d.matching(rules.callable, rules.others, rules.states)
}

// matching returns the first sentence of the text that one of phrases
// matches with no phrase of others before it and that accept takes, as a
// section starting on the sentence's line.
func (d *docText) matching(phrases, others []*regexp.Regexp, accept func(string) bool) (docSection, bool) {
	text := d.text.String()
	start := 0
	for start < len(text) {
		end := strings.IndexAny(text[start:], ".;")
		if end < 0 {
			end = len(text)
		} else {
			end += start + 1
		}
		sent := strings.TrimSpace(text[start:end])
		for _, re := range phrases {
			if loc := re.FindStringIndex(sent); loc != nil && !matchesAny(others, sent[:loc[0]]) && accept(sent) {
				first := start + len(text[start:end]) - len(strings.TrimLeft(text[start:end], " "))
				line := d.lines[0]
				for k, o := range d.offs {
					if o <= first {
						line = d.lines[k]
					}
				}
				return docSection{text: strings.Join(strings.Fields(sent), " "), line: line, sentence: true,
					subject: subjectName(sent)}, true
			}
		}
		start = end
	}
	return docSection{}, false
}

// subjectName returns the function a sentence starts with as its
// subject, "" when it starts otherwise: "_HardResetHandler can be invoked
// from an interrupt thread", "Remark: foo_bar() may be called ...". A name
// only counts when it can only be a function or symbol (an underscore, or
// "()"): "This routine can" and "It may" name the function described.
func subjectName(sent string) string {
	m := subjectRe.FindStringSubmatch(sent)
	if m == nil || !strings.Contains(m[1], "_") && m[2] == "" {
		return ""
	}
	return strings.TrimLeft(m[1], "_")
}

// subjectRe reads a sentence that starts (after an optional "Note:"
// label) with a name and a modal or copula.
var subjectRe = regexp.MustCompile(`^\W*(?:[A-Za-z]+:\s*)?(_*[A-Za-z]\w*)(\s*\(\))?\s+(?:is|are|can|may|might|must|should|will)\b`)

// matchesAny reports whether one of res matches s.
func matchesAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// docSectionRe matches a comment line that starts another kernel-doc
// section: a parameter ("@nb:", "@ops.start:") or a capitalised section
// name ("Return:", "Note:"). A continuation line that merely starts with
// "@nb may sleep" does not.
var docSectionRe = regexp.MustCompile(`^(@[\w.]+|[A-Z][\w-]*):`)

// docSectionStart reports whether a comment line starts another
// kernel-doc section.
func docSectionStart(body string) bool {
	return docSectionRe.MatchString(body)
}

// docContext returns the context fn's kernel-doc comment states, entered
// at the comment's "Context:" line; false when it states none. The
// comment ends at most three lines above the function's name (its
// return type and attributes may sit between).
func (r *Resolver) docContext(fn *cscan.Func) (Held, bool) {
	if r.ix == nil || len(r.m.doc.atomic) == 0 {
		return Held{}, false
	}
	secs := r.docContexts(fn.File)
	if len(secs) == 0 {
		return Held{}, false
	}
	for end := fn.Start - 1; end >= fn.Start-3 && end > 0; end-- {
		sec, ok := secs[end]
		if !ok {
			continue
		}
		if fn.Start-1-end > sec.heads {
			// A blank line, a statement or another declaration
			// between the comment and the function: not its comment.
			return Held{}, false
		}
		kind := r.m.doc.classify(sec.text)
		if kind == "" || sec.subject != "" && sec.subject != fn.Name {
			return Held{}, false
		}
		text := sec.text
		if r := []rune(text); len(r) > 80 {
			text = string(r[:80]) + "..."
		}
		if !sec.sentence {
			text = "Context: " + text
		}
		return Held{Kind: kind, Must: true, Stated: true,
			At:  report.Step{Func: fn.Name, File: fn.File, Line: sec.line, What: "kernel-doc: " + text},
			Why: "its kernel-doc says it is called in this context (\"" + text + "\"), where it must not sleep"}, true
	}
	return Held{}, false
}

// declHeadLine reports whether 1-based line n of lines can belong to the
// head of the declaration below it (its return type, storage class or
// attributes on lines of their own): not blank, and ending no statement,
// block or other declaration.
func declHeadLine(lines []string, n int) bool {
	if n < 1 || n > len(lines) {
		return false
	}
	t := strings.TrimSpace(lines[n-1])
	return t != "" && !strings.ContainsAny(t, ";{}") && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "*") && !strings.HasPrefix(t, "/")
}

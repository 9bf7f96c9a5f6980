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
	// section's text in lower case) with the context kind they state.
	Atomic []DocPhrase `yaml:"atomic"`
	// Unless are the phrases that lift the section.
	Unless []string `yaml:"unless"`
}

// DocPhrase is one phrase of DocContext.Atomic.
type DocPhrase struct {
	Match string `yaml:"match"`
	Kind  string `yaml:"kind"`
}

// docRules is the compiled DocContext.
type docRules struct {
	atomic []docRule
	unless []*regexp.Regexp
}

type docRule struct {
	re   *regexp.Regexp
	kind string
}

// compileDoc compiles t; kinds must be atomic context kinds.
func compileDoc(t DocContext) (docRules, error) {
	var d docRules
	for _, p := range t.Atomic {
		re, err := regexp.Compile(p.Match)
		if err != nil {
			return d, fmt.Errorf("doc_context: %q: %w", p.Match, err)
		}
		if !Kinds[p.Kind] {
			return d, fmt.Errorf("doc_context: %q: kind %q is no atomic context kind", p.Match, p.Kind)
		}
		d.atomic = append(d.atomic, docRule{re, p.Kind})
	}
	for _, u := range t.Unless {
		re, err := regexp.Compile(u)
		if err != nil {
			return d, fmt.Errorf("doc_context: unless %q: %w", u, err)
		}
		d.unless = append(d.unless, re)
	}
	return d, nil
}

// classify returns the context kind a "Context:" section's text states,
// "" when it states none or is lifted.
func (d docRules) classify(text string) string {
	text = strings.ToLower(text)
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

// docSection is a "Context:" section: its text and the line it starts
// on.
type docSection struct {
	text string
	line int
}

// docContexts returns the "Context:" sections of file's comments, by the
// line their comment ends on (cached per file of the view).
func (r *Resolver) docContexts(file string) map[int]docSection {
	v := r.fileMemo("lockctx.doccontext:"+file, file, func() any {
		src, err := r.ix.ReadFile(file)
		if err != nil || !bytes.Contains(src, []byte("Context:")) {
			return map[int]docSection(nil)
		}
		return scanDocContexts(src)
	})
	m, _ := v.(map[int]docSection)
	return m
}

// scanDocContexts finds the "Context:" sections of src's comments: the
// text from "Context:" to the section's end (a blank comment line,
// another section, the comment's end), keyed by the comment's last line.
func scanDocContexts(src []byte) map[int]docSection {
	out := map[int]docSection{}
	lines := strings.Split(string(src), "\n")
	var cur *docSection
	for i, l := range lines {
		t := strings.TrimSpace(l)
		opens := strings.HasPrefix(t, "/*")
		inComment := opens || strings.HasPrefix(t, "*") && !strings.HasPrefix(t, "*/")
		body := strings.TrimPrefix(strings.TrimPrefix(t, "/"), "**")
		body = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(body, "*"), "*/"))
		switch {
		case cur != nil && strings.Contains(t, "*/"):
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
			cur = &docSection{text: strings.TrimSpace(strings.TrimPrefix(body, "Context:")), line: i + 1}
			if strings.Contains(t, "*/") {
				out[i+1] = *cur
				cur = nil
			}
		}
	}
	return out
}

// docSectionStart reports whether a comment line starts another
// kernel-doc section ("Return:", "@arg:").
func docSectionStart(body string) bool {
	if strings.HasPrefix(body, "@") {
		return true
	}
	w, _, ok := strings.Cut(body, ":")
	return ok && w != "" && !strings.ContainsAny(w, " \t") && strings.ToUpper(w[:1]) == w[:1]
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
	for end := fn.Start - 1; end >= fn.Start-3 && end > 0; end-- {
		sec, ok := secs[end]
		if !ok {
			continue
		}
		kind := r.m.doc.classify(sec.text)
		if kind == "" {
			return Held{}, false
		}
		text := sec.text
		if len(text) > 80 {
			text = text[:80] + "..."
		}
		return Held{Kind: kind, Must: true,
			At:  report.Step{Func: fn.Name, File: fn.File, Line: sec.line, What: "kernel-doc: Context: " + text},
			Why: "its kernel-doc says it is called in this context (\"Context: " + text + "\"), where it must not sleep"}, true
	}
	return Held{}, false
}

// Package suppress keeps findings out of reports on purpose, and says so:
// RULE[/CATEGORY] specs (the check command's --ignore flag and the
// check.ignore configuration list, like checkpatch's --ignore) and the
// in-tree .autosel-ignore file, whose "function  rule/category  reason"
// lines mark known-safe constructs of a tree. A suppressed finding moves
// to its patch's Suppressed list (report.Suppress) with what suppressed
// it; it is counted in every summary, never dropped.
package suppress

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// FileName is the in-tree file of suppressions, at the tree's root.
const FileName = ".autosel-ignore"

// Spec is one RULE[/CATEGORY] to suppress: every finding of a rule, or of
// one of its categories.
type Spec struct {
	// Rule is the rule family ("sleep-in-atomic", "wakeup").
	Rule string
	// Category is the sub-check ("lost-wakeup"); empty for the whole rule.
	Category string
	// Source names where the spec was given ("--ignore", "check.ignore").
	Source string
}

// String is "RULE" or "RULE/CATEGORY".
func (s Spec) String() string {
	if s.Category == "" {
		return s.Rule
	}
	return s.Rule + "/" + s.Category
}

// Matches reports whether f is a finding the spec suppresses.
func (s Spec) Matches(f *report.Finding) bool {
	if f.Rule != s.Rule {
		return false
	}
	return s.Category == "" || s.Category == f.Category || (f.Category == "" && s.Category == f.Rule)
}

// ParseSpec parses "RULE" or "RULE/CATEGORY" (or a bare CATEGORY, resolved
// by Resolve) given by source.
func ParseSpec(s, source string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Spec{}, fmt.Errorf("empty rule name")
	}
	rule, cat, _ := strings.Cut(s, "/")
	for _, p := range []string{rule, cat} {
		if strings.IndexFunc(p, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		}) >= 0 {
			return Spec{}, fmt.Errorf("%q: want RULE or RULE/CATEGORY (letters, digits, - and _)", s)
		}
	}
	if rule == "" || (strings.Contains(s, "/") && cat == "") {
		return Spec{}, fmt.Errorf("%q: want RULE or RULE/CATEGORY", s)
	}
	return Spec{Rule: strings.ToLower(rule), Category: strings.ToLower(cat), Source: source}, nil
}

// ParseSpecs parses a list of specs, each item possibly a comma-separated
// list (--ignore a,b/c), in order.
func ParseSpecs(items []string, source string) ([]Spec, error) {
	var out []Spec
	for _, it := range items {
		for _, s := range strings.Split(it, ",") {
			if strings.TrimSpace(s) == "" {
				continue
			}
			sp, err := ParseSpec(s, source)
			if err != nil {
				return nil, fmt.Errorf("%s %w", source, err)
			}
			out = append(out, sp)
		}
	}
	return out, nil
}

// Known are the rule families and their categories (`autosel-bot rules`).
type Known map[string][]string

// Resolve checks a spec against the known rules: the rule must exist and
// have the category; a bare name that is no rule but the category of one
// rule stands for RULE/CATEGORY. The error names the spec and what is
// known.
func (k Known) Resolve(s Spec) (Spec, error) {
	cats, ok := k[s.Rule]
	if !ok {
		if s.Category == "" {
			var owners []string
			for r, cs := range k {
				for _, c := range cs {
					if c == s.Rule {
						owners = append(owners, r)
					}
				}
			}
			if len(owners) == 1 {
				return Spec{Rule: owners[0], Category: s.Rule, Source: s.Source}, nil
			}
		}
		return s, fmt.Errorf("%q: no rule %q (rules: %s; `autosel-bot rules` lists them and their categories)", s.String(), s.Rule, strings.Join(k.rules(), ", "))
	}
	if s.Category == "" || s.Category == s.Rule {
		return s, nil
	}
	for _, c := range cats {
		if c == s.Category {
			return s, nil
		}
	}
	return s, fmt.Errorf("%q: rule %s has no category %q (its categories: %s)", s.String(), s.Rule, s.Category, strings.Join(cats, ", "))
}

func (k Known) rules() []string {
	var out []string
	for r := range k {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Entry is one line of an .autosel-ignore file: findings of a rule (or
// category) in a function are known to be safe.
type Entry struct {
	// File, when set, limits the entry to one file ("path/file.c:func").
	File string
	// Func is the function name, or a pattern ('*' and '?' as in shell
	// globs).
	Func string
	// Spec is the rule and category suppressed.
	Spec Spec
	// Reason says why the construct is safe (required).
	Reason string
	// Line is the entry's line in the file.
	Line int
}

// Matches reports whether f is a finding the entry suppresses.
func (e Entry) Matches(f *report.Finding) bool {
	if !e.Spec.Matches(f) {
		return false
	}
	if e.File != "" && e.File != f.File {
		return false
	}
	ok, err := path.Match(e.Func, f.Func)
	return err == nil && ok
}

// ParseFile parses an .autosel-ignore file (name is how errors name it):
// one entry per line, "function  rule[/category]  reason", fields
// separated by white space, the reason being the rest of the line;
// "path/file.c:function" limits an entry to one file; blank lines and
// lines starting with '#' are skipped. A bad line is an error naming
// name:line, and the other lines are still read.
func ParseFile(name string, data []byte) ([]Entry, []error) {
	var out []Entry
	var errs []error
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		e, err := parseEntry(l)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, i+1, err))
			continue
		}
		e.Line = i + 1
		out = append(out, e)
	}
	return out, errs
}

func parseEntry(l string) (Entry, error) {
	fields := strings.Fields(l)
	if len(fields) < 3 {
		return Entry{}, fmt.Errorf("want \"function  rule/category  reason\", got %q", l)
	}
	var e Entry
	fn := fields[0]
	if i := strings.LastIndexByte(fn, ':'); i >= 0 {
		e.File, fn = fn[:i], fn[i+1:]
		if e.File == "" {
			return Entry{}, fmt.Errorf("%q: empty file before ':'", fields[0])
		}
	}
	if fn == "" {
		return Entry{}, fmt.Errorf("%q: no function", fields[0])
	}
	if _, err := path.Match(fn, ""); err != nil {
		return Entry{}, fmt.Errorf("%q: bad pattern: %w", fn, err)
	}
	e.Func = fn
	sp, err := ParseSpec(fields[1], FileName)
	if err != nil {
		return Entry{}, err
	}
	e.Spec = sp
	// The reason is the rest of the line, white space collapsed.
	e.Reason = strings.Join(fields[2:], " ")
	return e, nil
}

// Set is every suppression of one analysis: specs of the flags and the
// configuration, and the entries of the tree's file.
type Set struct {
	// Specs suppress a rule or category everywhere.
	Specs []Spec
	// Entries come from the tree's .autosel-ignore.
	Entries []Entry
}

// Empty reports whether the set suppresses nothing.
func (s *Set) Empty() bool { return s == nil || len(s.Specs)+len(s.Entries) == 0 }

// Match is the report.Suppression of the set: the first spec, then the
// first entry, that matches f.
func (s *Set) Match(f *report.Finding, _ *report.PatchReport) (by, reason string, inTree, ok bool) {
	for _, sp := range s.Specs {
		if sp.Matches(f) {
			return sp.Source + " " + sp.String(), "", false, true
		}
	}
	for _, e := range s.Entries {
		if e.Matches(f) {
			return fmt.Sprintf("%s:%d", FileName, e.Line), e.Reason, true, true
		}
	}
	return "", "", false, false
}

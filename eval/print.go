package eval

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/autosel-bot/autosel-bot/report"
)

// ratio formats n/d with a percentage.
func ratio(n, d int) string {
	if d == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", n, d, 100*float64(n)/float64(d))
}

// recall counts bug cases at risk and at risk-or-note.
type recall struct{ risk, note, total int }

func (r *recall) add(c *CaseResult) {
	r.total++
	switch c.Got {
	case LevelRisk:
		r.risk++
		r.note++
	case LevelNote:
		r.note++
	}
}

// halves are the splits a report prints, in order.
var halves = []Split{SplitTrain, SplitTest}

// bySplit holds one counter per half.
type bySplit[T any] map[Split]*T

// get returns the counter of half s, made on first use.
func (m bySplit[T]) get(s Split) *T {
	if m[s] == nil {
		m[s] = new(T)
	}
	return m[s]
}

// alarms counts cases with a risk among those of one kind.
type alarms struct{ risk, total int }

// Write prints the evaluation: recall per family and per mechanism, false
// alarms, variants, each for the train and the test split, then the
// per-case tables of the train split (and of the test split when
// res.ShowTest is set).
func (res *Results) Write(w io.Writer) error {
	var b strings.Builder
	res.writeHeader(&b)
	res.writeRecall(&b)
	res.writeMechanisms(&b)
	res.writeAlarms(&b)
	res.writeVariants(&b)
	res.writeSubsystems(&b)
	res.writeTestMisses(&b)
	res.writeCaseTables(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// count returns "N (train T, test S)" for the halves of xs.
func count[T any](xs []T, half func(T) Split) string {
	n := map[Split]int{}
	for _, x := range xs {
		n[half(x).Half()]++
	}
	return fmt.Sprintf("%d (train %d, test %d)", len(xs), n[SplitTrain], n[SplitTest])
}

func (res *Results) writeHeader(b *strings.Builder) {
	c := res.Corpus
	caseHalf := func(r *CaseResult) Split { return r.Case.Split }
	fmt.Fprintf(b, "corpus %s (%s)\n", c.Dir, res.Elapsed.Round(100_000_000))
	fmt.Fprintf(b, "  bug cases %s, near misses %s, ordinary patches %s, variants %d\n",
		count(res.Bugs, caseHalf), count(res.NearMisses, caseHalf),
		count(res.Ordinary, func(r *OrdinaryResult) Split { return r.Ordinary.Split }), len(res.Variants))
	if len(c.Problems) > 0 {
		fmt.Fprintf(b, "corpus problems (%d):\n", len(c.Problems))
		for _, p := range c.Problems {
			fmt.Fprintf(b, "  %v\n", p)
		}
	}
}

// writeRecall prints recall per family and split.
func (res *Results) writeRecall(b *strings.Builder) {
	byFam := map[string]bySplit[recall]{}
	for _, r := range res.Bugs {
		f := r.Case.Family.Rule
		if byFam[f] == nil {
			byFam[f] = bySplit[recall]{}
		}
		byFam[f].get(r.Case.Split.Half()).add(r)
	}
	b.WriteString("\nrecall on bug cases (a finding of the family naming the expected function)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  family\tsplit\tat risk\tat risk or note")
	all := bySplit[recall]{}
	for _, f := range sortedKeys(byFam) {
		for _, s := range halves {
			r := byFam[f].get(s)
			a := all.get(s)
			a.risk, a.note, a.total = a.risk+r.risk, a.note+r.note, a.total+r.total
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f, s, ratio(r.risk, r.total), ratio(r.note, r.total))
		}
	}
	for _, s := range halves {
		r := all.get(s)
		fmt.Fprintf(tw, "  all\t%s\t%s\t%s\n", s, ratio(r.risk, r.total), ratio(r.note, r.total))
	}
	tw.Flush()
}

// writeMechanisms prints recall and near-miss alarms per mechanism, train
// and test side by side.
func (res *Results) writeMechanisms(b *strings.Builder) {
	byMech := map[string]bySplit[recall]{}
	for _, r := range res.Bugs {
		m := r.Case.Family.Rule + "/" + r.Case.Mechanism
		if byMech[m] == nil {
			byMech[m] = bySplit[recall]{}
		}
		byMech[m].get(r.Case.Split.Half()).add(r)
	}
	b.WriteString("\nrecall per mechanism (at risk; at risk or note)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  family/mechanism\ttrain\t\ttest\t")
	for _, m := range sortedKeys(byMech) {
		tr, te := byMech[m].get(SplitTrain), byMech[m].get(SplitTest)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", m, ratio(tr.risk, tr.total), ratio(tr.note, tr.total), ratio(te.risk, te.total), ratio(te.note, te.total))
	}
	tw.Flush()
	nm := map[string]bySplit[alarms]{}
	for _, r := range res.NearMisses {
		m := r.Case.Family.Rule + "/" + r.Case.Mechanism
		if nm[m] == nil {
			nm[m] = bySplit[alarms]{}
		}
		a := nm[m].get(r.Case.Split.Half())
		a.total++
		if r.Got == LevelRisk {
			a.risk++
		}
	}
	if len(nm) == 0 {
		return
	}
	b.WriteString("\nnear misses given a risk, per mechanism they resemble\n")
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  family/mechanism\ttrain\ttest")
	for _, m := range sortedKeys(nm) {
		tr, te := nm[m].get(SplitTrain), nm[m].get(SplitTest)
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", m, ratio(tr.risk, tr.total), ratio(te.risk, te.total))
	}
	tw.Flush()
}

// writeAlarms prints the false alarms per split.
func (res *Results) writeAlarms(b *strings.Builder) {
	fix, nm := bySplit[alarms]{}, bySplit[alarms]{}
	nmFam := map[string]bySplit[alarms]{}
	var unevaluated, ordErr int
	for _, r := range res.Bugs {
		if r.Err != "" && r.Got == LevelNone && len(r.Family) == 0 && len(r.Other) == 0 {
			unevaluated++
		}
		a := fix.get(r.Case.Split.Half())
		a.total++
		if len(r.FixRisk) > 0 {
			a.risk++
		}
	}
	for _, r := range res.NearMisses {
		f := r.Case.Family.Rule
		if nmFam[f] == nil {
			nmFam[f] = bySplit[alarms]{}
		}
		for _, a := range []*alarms{nm.get(r.Case.Split.Half()), nmFam[f].get(r.Case.Split.Half())} {
			a.total++
			if r.Got == LevelRisk {
				a.risk++
			}
		}
	}
	tree, po, treeNote, poNote := bySplit[alarms]{}, bySplit[alarms]{}, bySplit[alarms]{}, bySplit[alarms]{}
	for _, r := range res.Ordinary {
		s := r.Ordinary.Split.Half()
		for _, x := range []struct {
			m   bySplit[alarms]
			hit bool
		}{{tree, len(r.TreeRisk) > 0}, {po, len(r.PatchOnlyRisk) > 0}, {treeNote, len(r.TreeNote) > 0}, {poNote, len(r.PatchOnlyNote) > 0}} {
			a := x.m.get(s)
			a.total++
			if x.hit {
				a.risk++
			}
		}
		if r.Err != "" {
			ordErr++
		}
	}
	b.WriteString("\nfalse alarms (cases with a risk finding)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  \ttrain\ttest")
	line := func(label string, m bySplit[alarms]) {
		tr, te := m.get(SplitTrain), m.get(SplitTest)
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", label, ratio(tr.risk, tr.total), ratio(te.risk, te.total))
	}
	line("fixes (fix.patch on top of bug.patch, any rule)", fix)
	line("near misses (risk of the family)", nm)
	for _, f := range sortedKeys(nmFam) {
		line("  near misses of "+f, nmFam[f])
	}
	line("ordinary patches, with the tree (any rule)", tree)
	line("ordinary patches, patch-only (any rule)", po)
	line("(information) ordinary patches with a note, with the tree", treeNote)
	line("(information) ordinary patches with a note, patch-only", poNote)
	tw.Flush()
	if unevaluated > 0 || ordErr > 0 {
		fmt.Fprintf(b, "  (%d bug cases and %d ordinary patches had apply or analysis errors: see the tables)\n", unevaluated, ordErr)
	}
}

// writeVariants prints, per mechanism, how many variants pass, and which
// axes fail.
func (res *Results) writeVariants(b *strings.Builder) {
	if len(res.Variants) == 0 {
		return
	}
	type tally struct {
		pass, total, ok, okTotal int
		failed                   []string
	}
	byMech := map[string]*tally{}
	var all tally
	for _, r := range res.Variants {
		v := r.Variant
		m := v.Family.Rule + "/" + v.Mechanism
		if byMech[m] == nil {
			byMech[m] = &tally{}
		}
		for _, t := range []*tally{byMech[m], &all} {
			t.total++
			if r.Pass() {
				t.pass++
			}
			if v.OKPatch != nil {
				t.okTotal++
				if r.OK != LevelRisk {
					t.ok++
				}
			}
		}
		if !r.Pass() {
			byMech[m].failed = append(byMech[m].failed, v.Name[strings.LastIndex(v.Name, "/")+1:])
		}
	}
	b.WriteString("\nvariants per mechanism (pass: bug.patch at risk on its function and ok.patch, if any, without a risk)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  family/mechanism\tpass\tok.patch clean\tfailing")
	for _, m := range sortedKeys(byMech) {
		t := byMech[m]
		failed := strings.Join(t.failed, " ")
		if failed == "" {
			failed = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", m, ratio(t.pass, t.total), ratio(t.ok, t.okTotal), failed)
	}
	fmt.Fprintf(tw, "  all\t%s\t%s\t\n", ratio(all.pass, all.total), ratio(all.ok, all.okTotal))
	tw.Flush()
}

// writeSubsystems prints how many subsystems each family's cases cover.
func (res *Results) writeSubsystems(b *strings.Builder) {
	type cover struct{ bugs, nm map[string]bool }
	byFam := map[string]*cover{}
	for _, rs := range [][]*CaseResult{res.Bugs, res.NearMisses} {
		for _, r := range rs {
			f := r.Case.Family.Rule
			if byFam[f] == nil {
				byFam[f] = &cover{map[string]bool{}, map[string]bool{}}
			}
			if r.Case.NearMiss {
				byFam[f].nm[r.Case.Subsystem] = true
			} else {
				byFam[f].bugs[r.Case.Subsystem] = true
			}
		}
	}
	if len(byFam) == 0 {
		return
	}
	b.WriteString("\nsubsystems covered (distinct `subsystem` values)\n")
	for _, f := range sortedKeys(byFam) {
		fmt.Fprintf(b, "  %s: %d by bug cases, %d by near misses\n", f, len(byFam[f].bugs), len(byFam[f].nm))
	}
}

// writeTestMisses lists the test split's misses and alarms by mechanism
// only: the cases themselves are not for the rule's designer to read.
func (res *Results) writeTestMisses(b *strings.Builder) {
	miss, alarm := map[string]int{}, map[string]int{}
	shapes := map[string]map[string]int{}
	for _, r := range res.Bugs {
		if r.Case.Split.Half() != SplitTest {
			continue
		}
		m := r.Case.Family.Rule + "/" + r.Case.Mechanism
		if r.Got != LevelRisk {
			miss[m]++
			if shapes[m] == nil {
				shapes[m] = map[string]int{}
			}
			shapes[m][missShape(r)]++
		}
		if len(r.FixRisk) > 0 {
			alarm[m+" (fix)"]++
		}
	}
	for _, r := range res.NearMisses {
		if r.Case.Split.Half() == SplitTest && r.Got == LevelRisk {
			alarm[r.Case.Family.Rule+"/"+r.Case.Mechanism+" (near miss)"]++
		}
	}
	if len(miss)+len(alarm) == 0 {
		return
	}
	b.WriteString("\ntest split, by class only (misses at risk; false alarms)\n")
	for _, m := range sortedKeys(miss) {
		var parts []string
		for _, k := range sortedKeys(shapes[m]) {
			parts = append(parts, fmt.Sprintf("%s %d", k, shapes[m][k]))
		}
		fmt.Fprintf(b, "  miss  %s: %d (%s)\n", m, miss[m], strings.Join(parts, ", "))
	}
	for _, m := range sortedKeys(alarm) {
		fmt.Fprintf(b, "  alarm %s: %d\n", m, alarm[m])
	}
}

// missShape says, in general terms only, how a bug case missed its risk:
// an error, a note on the expected function, the family's findings only
// on other functions (at risk, or notes), or no finding of the family.
// It tells a reach the rule does not follow from a finding it places
// elsewhere, without showing the case.
func missShape(r *CaseResult) string {
	switch {
	case r.Err != "" && len(r.Family) == 0:
		return "error"
	case r.Got == LevelNote:
		return "note on it"
	case len(r.Family) == 0:
		return "no finding of the family"
	}
	for _, h := range r.Family {
		if h.Severity == report.SeverityRisk {
			return "risk elsewhere"
		}
	}
	return "notes elsewhere"
}

// writeCaseTables prints the per-case tables of the train split, and of
// the test split only when ShowTest is set.
func (res *Results) writeCaseTables(b *strings.Builder) {
	show := func(s Split) bool { return s.Half() == SplitTrain || res.ShowTest }
	var bugs, nms []*CaseResult
	for _, r := range res.Bugs {
		if show(r.Case.Split) {
			bugs = append(bugs, r)
		}
	}
	for _, r := range res.NearMisses {
		if show(r.Case.Split) {
			nms = append(nms, r)
		}
	}
	which := "train split"
	if res.ShowTest {
		which = "train and test splits"
	}
	if len(bugs) > 0 {
		fmt.Fprintf(b, "\nbug cases (%s)\n", which)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  case\tsplit\tfamily\tmechanism\texpected\tgot\tnamed (family findings)\tfix risk\tnotes")
		for _, r := range bugs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Case.Name, r.Case.Split.Half(), r.Case.Family.Rule, r.Case.Mechanism,
				r.Case.Expect.Function, r.Got, named(r.Family), len(r.FixRisk), notes(r))
		}
		tw.Flush()
	}
	if len(nms) > 0 {
		fmt.Fprintf(b, "\nnear misses (%s)\n", which)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  case\tsplit\tfamily\tmechanism\tgot\tnamed (family findings)\tnotes")
		for _, r := range nms {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Case.Name, r.Case.Split.Half(), r.Case.Family.Rule, r.Case.Mechanism,
				r.Got, named(r.Family), notes(r))
		}
		tw.Flush()
	}
	if len(res.Variants) > 0 {
		b.WriteString("\nvariants\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  variant\texpected\tgot\tok.patch\tnamed (family findings)\terror")
		for _, r := range res.Variants {
			ok := "-"
			if r.Variant.OKPatch != nil {
				ok = string(r.OK)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", r.Variant.Name, r.Variant.Expect.Function, r.Got, ok, named(append(r.Family, r.OKFamily...)), trim(r.Err, 100))
		}
		tw.Flush()
	}
	var flagged []*OrdinaryResult
	for _, r := range res.Ordinary {
		if !show(r.Ordinary.Split) {
			continue
		}
		if len(r.TreeRisk) > 0 || len(r.PatchOnlyRisk) > 0 || r.Err != "" {
			flagged = append(flagged, r)
		}
	}
	if len(flagged) > 0 {
		fmt.Fprintf(b, "\nordinary patches with a risk finding or an error (%s)\n", which)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  patch\tkind\twith tree\tpatch-only\terror")
		for _, r := range flagged {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Ordinary.Name, r.Ordinary.Kind, named(r.TreeRisk), named(r.PatchOnlyRisk), trim(r.Err, 100))
		}
		tw.Flush()
	}
}

// named lists "severity rule func" of the hits, "-" when there are none.
func named(hs []Hit) string {
	if len(hs) == 0 {
		return "-"
	}
	seen := map[string]bool{}
	var out []string
	for _, h := range hs {
		s := h.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// notes summarises other families' findings and errors of a case.
func notes(r *CaseResult) string {
	var out []string
	if len(r.Other) > 0 {
		out = append(out, "other: "+named(r.Other))
	}
	if len(r.FixRisk) > 0 {
		out = append(out, "on the fix: "+named(r.FixRisk))
	}
	if r.Err != "" {
		out = append(out, trim(r.Err, 100))
	}
	return strings.Join(out, "; ")
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

package eval

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
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

// Write prints the evaluation: recall per family and per mechanism, false
// alarms, and the per-case tables.
func (res *Results) Write(w io.Writer) error {
	var b strings.Builder
	c := res.Corpus
	fmt.Fprintf(&b, "corpus %s: %d bug cases, %d near misses, %d ordinary patches (%s)\n",
		c.Dir, len(c.Bugs), len(c.NearMisses), len(c.Ordinary), res.Elapsed.Round(100_000_000))
	if len(c.Problems) > 0 {
		fmt.Fprintf(&b, "corpus problems (%d):\n", len(c.Problems))
		for _, p := range c.Problems {
			fmt.Fprintf(&b, "  %v\n", p)
		}
	}

	byFam, byMech := map[string]*recall{}, map[string]*recall{}
	var fixAlarm, unevaluated int
	for _, r := range res.Bugs {
		if r.Err != "" && r.Got == LevelNone && len(r.Family) == 0 && len(r.Other) == 0 {
			unevaluated++
		}
		f := r.Case.Family.Rule
		if byFam[f] == nil {
			byFam[f] = &recall{}
		}
		byFam[f].add(r)
		m := f + "/" + r.Case.Mechanism
		if byMech[m] == nil {
			byMech[m] = &recall{}
		}
		byMech[m].add(r)
		if len(r.FixRisk) > 0 {
			fixAlarm++
		}
	}
	b.WriteString("\nrecall on bug cases (a finding of the family naming the expected function)\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  family\tat risk\tat risk or note")
	var all recall
	for _, f := range sortedKeys(byFam) {
		r := byFam[f]
		all.risk, all.note, all.total = all.risk+r.risk, all.note+r.note, all.total+r.total
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f, ratio(r.risk, r.total), ratio(r.note, r.total))
	}
	fmt.Fprintf(tw, "  all\t%s\t%s\n", ratio(all.risk, all.total), ratio(all.note, all.total))
	tw.Flush()
	b.WriteString("\nrecall per mechanism\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  family/mechanism\tat risk\tat risk or note")
	for _, m := range sortedKeys(byMech) {
		r := byMech[m]
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", m, ratio(r.risk, r.total), ratio(r.note, r.total))
	}
	tw.Flush()

	var nmAlarm int
	for _, r := range res.NearMisses {
		if r.Got == LevelRisk {
			nmAlarm++
		}
	}
	var treeAlarm, poAlarm, ordErr, treeNote, poNote int
	for _, r := range res.Ordinary {
		if len(r.TreeNote) > 0 {
			treeNote++
		}
		if len(r.PatchOnlyNote) > 0 {
			poNote++
		}
		if len(r.TreeRisk) > 0 {
			treeAlarm++
		}
		if len(r.PatchOnlyRisk) > 0 {
			poAlarm++
		}
		if r.Err != "" {
			ordErr++
		}
	}
	b.WriteString("\nfalse alarms (cases with a risk finding)\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  fixes (fix.patch on top of bug.patch, any rule)\t%s\n", ratio(fixAlarm, len(res.Bugs)))
	fmt.Fprintf(tw, "  near misses (risk of the family)\t%s\n", ratio(nmAlarm, len(res.NearMisses)))
	fmt.Fprintf(tw, "  ordinary patches, with the tree (any rule)\t%s\n", ratio(treeAlarm, len(res.Ordinary)))
	fmt.Fprintf(tw, "  ordinary patches, patch-only (any rule)\t%s\n", ratio(poAlarm, len(res.Ordinary)))
	fmt.Fprintf(tw, "  (information) ordinary patches with a note, with the tree\t%s\n", ratio(treeNote, len(res.Ordinary)))
	fmt.Fprintf(tw, "  (information) ordinary patches with a note, patch-only\t%s\n", ratio(poNote, len(res.Ordinary)))
	tw.Flush()
	if unevaluated > 0 || ordErr > 0 {
		fmt.Fprintf(&b, "  (%d bug cases and %d ordinary patches had apply or analysis errors: see the tables)\n", unevaluated, ordErr)
	}

	if len(res.Bugs) > 0 {
		b.WriteString("\nbug cases\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  case\tfamily\tmechanism\texpected\tgot\tnamed (family findings)\tfix risk\tnotes")
		for _, r := range res.Bugs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Case.Name, r.Case.Family.Rule, r.Case.Mechanism,
				r.Case.Expect.Function, r.Got, named(r.Family), len(r.FixRisk), notes(r))
		}
		tw.Flush()
	}
	if len(res.NearMisses) > 0 {
		b.WriteString("\nnear misses\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  case\tfamily\tmechanism\tgot\tnamed (family findings)\tnotes")
		for _, r := range res.NearMisses {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", r.Case.Name, r.Case.Family.Rule, r.Case.Mechanism,
				r.Got, named(r.Family), notes(r))
		}
		tw.Flush()
	}
	var flagged []*OrdinaryResult
	for _, r := range res.Ordinary {
		if len(r.TreeRisk) > 0 || len(r.PatchOnlyRisk) > 0 || r.Err != "" {
			flagged = append(flagged, r)
		}
	}
	if len(flagged) > 0 {
		b.WriteString("\nordinary patches with a risk finding or an error\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  patch\tkind\twith tree\tpatch-only\terror")
		for _, r := range flagged {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Ordinary.Name, r.Ordinary.Kind, named(r.TreeRisk), named(r.PatchOnlyRisk), trim(r.Err, 100))
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
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

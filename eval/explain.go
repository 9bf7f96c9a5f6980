package eval

import (
	"fmt"
	"io"
	"strings"
)

// Explain prints every finding, with its message and chain, of the named
// cases (bug cases, near misses and variants by Name, ordinary patches by
// file name). Cases of the test split are refused unless showTest is set:
// whoever designs a rule reads only their numbers.
func (res *Results) Explain(w io.Writer, names []string, showTest bool) error {
	var b strings.Builder
	for _, name := range names {
		found := false
		for _, rs := range [][]*CaseResult{res.Bugs, res.NearMisses} {
			for _, r := range rs {
				if r.Case.Name != name {
					continue
				}
				found = true
				if r.Case.Split.Half() == SplitTest && !showTest {
					fmt.Fprintf(&b, "%s: test split, not shown\n", name)
					continue
				}
				fmt.Fprintf(&b, "%s (%s, expected %s: got %s)\n", name, r.Case.Mechanism, r.Case.Expect.Function, r.Got)
				explainHits(&b, "finding", append(r.Family, r.Other...))
				explainHits(&b, "on the fix", r.FixRisk)
				if r.Err != "" {
					fmt.Fprintf(&b, "  error: %s\n", r.Err)
				}
			}
		}
		for _, r := range res.Variants {
			if r.Variant.Name == name {
				found = true
				fmt.Fprintf(&b, "%s (expected %s: got %s, ok.patch %s)\n", name, r.Variant.Expect.Function, r.Got, r.OK)
				explainHits(&b, "finding", r.Family)
				explainHits(&b, "on ok.patch", r.OKFamily)
			}
		}
		for _, r := range res.Ordinary {
			if r.Ordinary.Name == name {
				found = true
				if r.Ordinary.Split.Half() == SplitTest && !showTest {
					fmt.Fprintf(&b, "%s: test split, not shown\n", name)
					continue
				}
				fmt.Fprintf(&b, "%s\n", name)
				explainHits(&b, "with the tree", append(r.TreeRisk, r.TreeNote...))
				explainHits(&b, "patch-only", append(r.PatchOnlyRisk, r.PatchOnlyNote...))
			}
		}
		if !found {
			fmt.Fprintf(&b, "%s: no such case\n", name)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func explainHits(b *strings.Builder, what string, hs []Hit) {
	for _, h := range hs {
		fmt.Fprintf(b, "  %s: %s %s %s:%d %s(): %s\n", what, h.Severity, h.Check(), h.File, h.Line, h.Func, h.Message)
		for _, s := range h.Chain {
			fmt.Fprintf(b, "      %s\n", s)
		}
	}
}

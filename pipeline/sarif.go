package pipeline

import (
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
)

// SARIFRules describes rs for a SARIF log (report.SARIFTool.Rules), from
// their docs: one rule per category of a family (ruleId
// "family/category"; the category's doc is its description, the family's
// its full description, both its help), one per family without
// categories.
func SARIFRules(rs []*rules.Rule) []report.SARIFRule {
	var out []report.SARIFRule
	for _, r := range rs {
		if len(r.Categories) == 0 {
			out = append(out, report.SARIFRule{ID: r.Name, Name: r.Name, Short: r.Doc, Help: r.Doc})
			continue
		}
		for _, c := range r.Categories {
			f := report.Finding{Rule: r.Name, Category: c.Name}
			out = append(out, report.SARIFRule{
				ID: report.SARIFRuleID(&f), Name: c.Name,
				Short: c.Doc, Full: r.Doc, Help: c.Doc + "\n\n" + r.Name + ": " + r.Doc,
			})
		}
	}
	return out
}

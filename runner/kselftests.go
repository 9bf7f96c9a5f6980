package runner

import (
	"context"
	"fmt"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/runner/kselftest"
)

// KselftestPlan chooses the kernel selftests that run for patches on tree
// at commit: the table's rules for the touched files, then the tree's own
// MAINTAINERS (at commit) as a fallback, within KselftestBudget. With
// Kselftests "off" the plan is empty and says so.
func (o Options) KselftestPlan(ctx context.Context, tree, commit string, patches []Patch) (*kselftest.Plan, error) {
	o = o.WithDefaults()
	if o.Kselftests == "off" {
		return &kselftest.Plan{Notes: []string{"runner.kselftests is off"}}, nil
	}
	tab, err := kselftest.LoadTable(o.KselftestTables)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, p := range patches {
		files = append(files, kselftest.TouchedFiles(p.Diff)...)
	}
	var maint []kselftest.Entry
	if b, err := git.New(tree).Output(ctx, nil, "show", commit+":MAINTAINERS"); err == nil {
		maint = kselftest.ParseMaintainers(b)
	}
	budget := o.KselftestBudget
	if budget < 0 {
		budget = 0
	}
	return kselftest.Select(tab, maint, files, budget), nil
}

// kselftestFragment is the config fragment every table target needs
// (nil with Kselftests "off").
func (o Options) kselftestFragment() ([]byte, error) {
	if o.Kselftests == "off" {
		return nil, nil
	}
	tab, err := kselftest.LoadTable(o.KselftestTables)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	return tab.ConfigFragment(), nil
}

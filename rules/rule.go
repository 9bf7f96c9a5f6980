// Package rules is the framework the analyses run in: a Rule is a small
// value with a name, a doc string, its categories (sub-checks) and a Run
// function, in the spirit of golang.org/x/tools/go/analysis. A Pass is
// the input and output of one run over one patch (pass.go); Build checks
// and builds a list of rule families (registry.go; the list itself is in
// rules/all); LoadTables reads a family's embedded YAML table of kernel
// primitives, extendable from config.yaml (tables.go, tables/).
//
// The families live in subpackages (rules/sleep, rules/wakeup) on top of
// the shared atomic-context engine rules/lockctx; rules/rulestest runs
// their case files.
package rules

import (
	"context"
	"log/slog"

	"github.com/autosel-bot/autosel-bot/index"
)

// Rule is one analysis family.
type Rule struct {
	// Name is the rule family name used in findings and config.
	Name string
	// Doc is a one-paragraph description for `autosel-bot rules` and
	// reports.
	Doc string
	// Categories are the sub-checks the family reports findings under
	// (Finding.Category); empty when the family has a single check.
	Categories []Category
	// Run analyses one patch, reporting findings with Pass.Report.
	Run func(p *Pass) error
	// Prepare, when set, is run once per tree index before the first
	// patch is analysed over it, with no analysis running: a family
	// derives and persists what it needs of the whole tree there (the
	// sleep rule's stored summaries). It may release what the index
	// decoded (index.Index.Release). An error is logged and the family
	// runs without it.
	Prepare func(ctx context.Context, ix *index.Index, log *slog.Logger) error
}

// Category is one sub-check of a rule family.
type Category struct {
	// Name is the Finding.Category value.
	Name string
	// Doc says what the sub-check reports.
	Doc string
}

// Options are the user-settable knobs shared by rules.
type Options struct {
	// TableFiles are extra YAML files extending the embedded primitive
	// tables; each rule reads its own top-level section.
	TableFiles []string `mapstructure:"tables" yaml:"tables"`
}

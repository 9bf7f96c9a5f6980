// Package rules holds the analyses run over a ChangeSet: each is a small
// Rule value with a name, a doc string and a Run function, in the spirit of
// golang.org/x/tools/go/analysis. Tables of kernel primitives are embedded
// YAML, extendable from config.yaml.
package rules

import (
	"github.com/autosel-bot/autosel-bot/report"
)

// Rule is one analysis.
type Rule struct {
	// Name is the rule family name used in findings and config.
	Name string
	// Doc is a one-paragraph description for --help and reports.
	Doc string
	// Run analyses one patch.
	Run func(p *Pass) ([]report.Finding, error)
}

// Options are the user-settable knobs shared by rules.
type Options struct {
	// Depth bounds interprocedural summaries and caller chains (default 4).
	Depth int `mapstructure:"depth" yaml:"depth"`
	// TableFiles are extra YAML files extending the embedded primitive
	// tables; each rule reads its own top-level section.
	TableFiles []string `mapstructure:"tables" yaml:"tables"`
}

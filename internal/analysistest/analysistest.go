// Package analysistest gives tests the analysis stage as `check --tree`
// and `watch` run it: config.yaml's rule options, every rule, a kernel
// tree and the default index cache.
package analysistest

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/configtest"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
)

// TreeStage returns the analysis stage over tree with the documented
// rule options.
func TreeStage(tb testing.TB, tree string) pipeline.Stage {
	tb.Helper()
	var ro rules.Options
	if err := configtest.Section("rules", &ro); err != nil {
		tb.Fatal(err)
	}
	rs, err := all.Rules(ro)
	if err != nil {
		tb.Fatal(err)
	}
	an, err := pipeline.NewAnalysis(pipeline.AnalysisOptions{Rules: rs, RuleOptions: ro, Tree: tree,
		IndexOptions: index.Options{}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return an
}

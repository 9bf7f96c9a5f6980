package pipeline

import (
	"context"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
)

// BenchmarkAnalysisPatchOnly runs the analysis stage with every registered
// rule over the two seed-002 patches (patch-only mode): the per-series cost
// check, replay and watch pay without a tree.
func BenchmarkAnalysisPatchOnly(b *testing.B) {
	d1, d2 := readDiff(b, "watch-queue-1.diff"), readDiff(b, "watch-queue-2.diff")
	rs, err := all.Rules(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	an, err := NewAnalysis(AnalysisOptions{Rules: rs, RuleOptions: rules.Options{}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	p := &Pipeline{Stages: []Stage{an}}
	s := &series.Series{ID: "p1@x", Version: 5, Total: 2, Patches: []*series.Patch{
		{Number: 1, Msg: msg("p1@x", "[PATCH v5 1/2] a", d1, 1)},
		{Number: 2, Msg: msg("p2@x", "[PATCH v5 2/2] b", d2, 1)},
	}}
	b.ReportAllocs()
	for b.Loop() {
		r, err := p.Run(context.Background(), s)
		if err != nil || r.Patches[1].Error != "" {
			b.Fatalf("%v %s", err, r.Patches[1].Error)
		}
	}
	b.ReportMetric(float64(len(rs)), "rules")
}

package main

import (
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"log/slog"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/runner"
	"github.com/autosel-bot/autosel-bot/stable"
)

// newPipeline builds the one pipeline that check, replay and watch run:
// the analysis (every rule; on tree when it is set), then the stable-tree
// and VM stages, which do nothing unless enabled in their config sections.
func newPipeline(a *app, tree string, log *slog.Logger) (*pipeline.Pipeline, error) {
	rs, err := rules.All(a.cfg.Rules)
	if err != nil {
		return nil, err
	}
	an, err := pipeline.NewAnalysis(pipeline.AnalysisOptions{
		Rules:        rs,
		RuleOptions:  a.cfg.Rules,
		Tree:         tree,
		IndexOptions: index.Options{Depth: a.cfg.Rules.Depth, Logger: log},
		Log:          log,
	})
	if err != nil {
		return nil, err
	}
	return &pipeline.Pipeline{Stages: []pipeline.Stage{
		an,
		stable.NewStage(a.cfg.Stable).WithLogger(log).
			WithBuildPolicy(a.cfg.Sandbox, patchguard.New(a.cfg.Runner.DenyPaths, a.cfg.Runner.AllowPaths)),
		runner.NewStage(a.cfg.Runner, runner.WithSandbox(a.cfg.Sandbox)),
	}, Log: log}, nil
}

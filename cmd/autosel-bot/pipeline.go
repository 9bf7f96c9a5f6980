package main

import (
	"fmt"
	"log/slog"

	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/stable"
	"github.com/autosel-bot/autosel-bot/suppress"
)

// newPipeline builds the one pipeline that check, replay and watch run:
// the analysis (every rule; on tree when it is set), then the stable-tree
// and VM stages, which do nothing unless enabled in their config sections
// (the VM stage boots on GitHub Actions with github.actions.enabled).
// workers is the analysis' bound on patches analysed at once
// (pipeline.AnalysisOptions.Workers; 0: its callers' bound). Findings
// of the rules in check.ignore and in ignore (check's --ignore flags) are
// suppressed, as are those the tree's .autosel-ignore names.
func newPipeline(a *app, tree string, workers int, ignore []string, log *slog.Logger) (*pipeline.Pipeline, error) {
	rs, err := all.Rules(a.cfg.Rules)
	if err != nil {
		return nil, err
	}
	specs, err := suppress.ParseSpecs(a.cfg.Check.Ignore, "check.ignore")
	if err != nil {
		return nil, &exitError{2, fmt.Errorf("%w (%s)", err, keyName(a, "check.ignore"))}
	}
	flags, err := suppress.ParseSpecs(ignore, "--ignore")
	if err != nil {
		return nil, &exitError{2, err}
	}
	if n := a.cfg.Index.PageCacheMB; n < 0 {
		return nil, &exitError{2, fmt.Errorf("%s %d: want 0 (no bound) or more MB", keyName(a, "index.page_cache_mb"), n)}
	}
	an, err := pipeline.NewAnalysis(pipeline.AnalysisOptions{
		Rules:        rs,
		RuleOptions:  a.cfg.Rules,
		Tree:         tree,
		IndexOptions: a.indexOptions(log),
		IndexWarm:    a.cfg.Index.Warm,
		Prepare:      a.cfg.Index.Summaries,
		Workers:      workers,
		Ignore:       append(flags, specs...),
		Version:      buildVersion(),
	}, log)
	if err != nil {
		return nil, &exitError{2, err}
	}
	so := a.cfg.Stable
	if so.Enabled {
		if err := so.Validate(); err != nil {
			return nil, err
		}
	}
	guard := patchguard.New(a.cfg.Runner.DenyPaths, a.cfg.Runner.AllowPaths)
	so.Sandbox, so.Guard = a.cfg.Sandbox, &guard
	vm, err := vmStage(a, log)
	if err != nil {
		return nil, err
	}
	return &pipeline.Pipeline{Stages: []pipeline.Stage{
		an,
		stable.NewStage(so, log),
		vm,
	}, Log: log}, nil
}

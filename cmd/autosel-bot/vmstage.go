package main

import (
	"log/slog"

	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/runner"
	"github.com/autosel-bot/autosel-bot/runner/actions"
	"github.com/autosel-bot/autosel-bot/runner/lava"
)

// vmStage is the VM stage of the pipeline: the local backend, lava with
// runner.backend: lava, or github-actions when github.actions.enabled.
func vmStage(a *app, log *slog.Logger) (pipeline.Stage, error) {
	ga := a.cfg.GitHub.Actions
	opts := a.cfg.Runner.Options
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.Sandbox = a.cfg.Sandbox
	if a.cfg.Runner.Enabled && !ga.Enabled && a.cfg.Runner.Backend == "lava" {
		return runner.NewStageWithBackend(opts, log, func(o runner.Options) (runner.Backend, error) {
			be, err := lava.NewWithLocal(a.cfg.Runner.Lava, o, log)
			if err != nil {
				return nil, err
			}
			a.collectors = append(a.collectors, be.Collector())
			return be, nil
		})
	}
	if !ga.Enabled || !a.cfg.Runner.Enabled {
		return runner.NewStage(opts, log), nil
	}
	if err := a.cfg.GitHub.Validate(); err != nil {
		return nil, err
	}
	c, err := githubClient(a.cfg.GitHub, log)
	if err != nil {
		return nil, err
	}
	return runner.NewStageWithBackend(opts, log, func(o runner.Options) (runner.Backend, error) {
		ao := ga
		ao.WorkDir, ao.Log = o.WorkDir+"/actions", log
		return actions.New(c, runner.NewLocal(o), ao)
	})
}

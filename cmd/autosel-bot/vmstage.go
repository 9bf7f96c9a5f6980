package main

import (
	"fmt"
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
	switch a.cfg.Runner.Backend {
	case "", "local", "lava":
	default:
		return nil, fmt.Errorf("runner.backend %q: want local or lava", a.cfg.Runner.Backend)
	}
	if a.cfg.Runner.Enabled && !ga.Enabled && a.cfg.Runner.Backend == "lava" {
		return runner.NewStageWithBackend(a.cfg.Runner, log, func(o runner.Options) (runner.Backend, error) {
			be, err := lava.FromConfig(a.cfg.Runner.Lava, o, log)
			if err != nil {
				return nil, err
			}
			a.collectors = append(a.collectors, be.Collector())
			return be, nil
		}, runner.WithSandbox(a.cfg.Sandbox))
	}
	if !ga.Enabled || !a.cfg.Runner.Enabled {
		return runner.NewStage(a.cfg.Runner, runner.WithSandbox(a.cfg.Sandbox)), nil
	}
	if err := a.cfg.GitHub.Validate(); err != nil {
		return nil, err
	}
	c, err := githubClient(a.cfg.GitHub, log)
	if err != nil {
		return nil, err
	}
	return runner.NewStageWithBackend(a.cfg.Runner, log, func(o runner.Options) (runner.Backend, error) {
		return actions.New(c, runner.NewLocal(o), actions.Options{
			Repo: ga.Repo, Ref: ga.Ref, Workflow: ga.Workflow, ReleaseTag: ga.ReleaseTag, Accel: ga.Accel,
			MaxInFlight: ga.MaxInFlight, PollInterval: ga.PollInterval, FindTimeout: ga.FindTimeout, RunTimeout: ga.RunTimeout,
			WorkDir: o.WorkDir + "/actions", Log: log,
		})
	}, runner.WithSandbox(a.cfg.Sandbox))
}

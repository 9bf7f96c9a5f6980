package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable"
)

// newCommander wires the answers to "#autosel" commands: the replies'
// options, and "#autosel test" running the analysis, the stable trees
// named and the VM suite (on even when runner.enabled is off, when
// runner.tree is set) over the series. slowDown (a debugging flag) makes
// every test run that much longer.
func newCommander(a *app, p *pipeline.Pipeline, ropts reply.Options, log *slog.Logger, slowDown time.Duration) (*botcmd.Handler, error) {
	vm := p.Stages[len(p.Stages)-1]
	if !a.cfg.Runner.Enabled && a.cfg.Runner.Tree != "" {
		ca := *a
		cfg := *a.cfg
		cfg.Runner.Enabled = true
		ca.cfg = &cfg
		st, err := vmStage(&ca, log)
		if err != nil {
			return nil, err
		}
		a.collectors = ca.collectors
		vm = st
	}
	var trees []string
	for _, t := range a.cfg.Stable.Trees {
		trees = append(trees, t.Name)
	}
	h := &botcmd.Handler{Reply: ropts, Trees: trees}
	if a.cfg.Runner.Tree != "" {
		h.TestCommand = "autosel-bot test --tree " + filepath.Base(a.cfg.Runner.Tree) + " --patch"
	}
	h.Test = func(ctx context.Context, s *series.Series, names []string) (*report.Report, error) {
		if slowDown > 0 {
			select {
			case <-time.After(slowDown):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		stages := []pipeline.Stage{p.Stages[0]}
		if len(names) > 0 {
			so, err := stableFor(a, names)
			if err != nil {
				return nil, err
			}
			stages = append(stages, stable.NewStage(so, log))
		}
		stages = append(stages, vm)
		r, err := (&pipeline.Pipeline{Stages: stages, Log: log}).Run(ctx, s)
		if err != nil {
			return nil, err
		}
		if a.cfg.Runner.Tree == "" {
			r.Notes = append(r.Notes, "VM suite not configured on this bot (runner.tree is empty)")
		}
		return r, nil
	}
	return h, nil
}

// stableFor is the stable section with only the named trees, enabled.
func stableFor(a *app, names []string) (stable.Options, error) {
	so := a.cfg.Stable
	so.Enabled = true
	so.Trees = nil
	for _, n := range names {
		for _, t := range a.cfg.Stable.Trees {
			if t.Name == n {
				so.Trees = append(so.Trees, t)
			}
		}
	}
	if err := so.Validate(); err != nil {
		return so, fmt.Errorf("stable: %w", err)
	}
	guard := patchguard.New(a.cfg.Runner.DenyPaths, a.cfg.Runner.AllowPaths)
	so.Sandbox, so.Guard = a.cfg.Sandbox, &guard
	return so, nil
}

package runner

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/autosel-bot/autosel-bot/config"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// Stage is the pipeline stage (pipeline.Stage) that fills Report.VM: the
// series' patches, applied in order to the configured tree, compared with
// the baseline in QEMU.
type Stage struct {
	cfg    config.RunnerConfig
	runner *Runner
}

// NewStage returns the VM stage for the runner config section. It does
// nothing unless cfg.Enabled and cfg.Tree are set. Progress and
// diagnostics go to opts' logger when given (optional).
func NewStage(cfg config.RunnerConfig, opts ...func(*Options)) *Stage {
	o := FromConfig(cfg)
	for _, f := range opts {
		f(&o)
	}
	return &Stage{cfg: cfg, runner: New(o, nil)}
}

// WithLogger sends the stage's progress and diagnostics to log.
func (s *Stage) WithLogger(log *slog.Logger) *Stage {
	o := s.runner.opts
	o.Log = log
	s.runner = New(o, nil)
	return s
}

// Name implements pipeline.Stage.
func (s *Stage) Name() string { return "vm" }

// Run implements pipeline.Stage.
func (s *Stage) Run(ctx context.Context, ser *series.Series, r *report.Report) error {
	if !s.cfg.Enabled || s.cfg.Tree == "" {
		return nil
	}
	if ser.Incomplete != "" {
		r.Notes = append(r.Notes, "VM suite not run: the series is incomplete ("+ser.Incomplete+")")
		return nil
	}
	patches := SeriesPatches(ser)
	if len(patches) == 0 {
		return nil
	}
	vm, err := s.runner.Compare(ctx, s.cfg.Tree, s.cfg.Baseline, patches)
	if err != nil {
		return fmt.Errorf("vm: %w", err)
	}
	r.VM = vm
	return nil
}

// SeriesPatches returns the submitted patches of a series (not the diffs
// proposed in review) in order, as runner patches.
func SeriesPatches(ser *series.Series) []Patch {
	var out []Patch
	for _, p := range ser.Patches {
		if p == nil || p.Msg == nil || p.Msg.Diff == "" {
			continue
		}
		name := p.Msg.Subject.Raw
		if name == "" {
			name = fmt.Sprintf("patch %d", p.Number)
		}
		out = append(out, Patch{Name: name, Diff: []byte(p.Msg.Diff)})
	}
	return out
}

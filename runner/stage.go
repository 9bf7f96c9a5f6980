package runner

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// Stage is the pipeline stage (pipeline.Stage) that fills Report.VM: the
// series' patches, applied in order to the configured tree, compared with
// the baseline in QEMU.
type Stage struct {
	opts   Options
	runner *Runner
}

// NewStage returns the VM stage for opts (the `runner:` section, with the
// sandbox set), booting on the local backend. It does nothing unless
// opts.Enabled and opts.Tree are set. Progress and diagnostics go to log
// (nil: discarded).
func NewStage(opts Options, log *slog.Logger) *Stage {
	if log != nil {
		opts.Log = log
	}
	return &Stage{opts: opts, runner: New(opts, nil)}
}

// Name implements pipeline.Stage.
func (s *Stage) Name() string { return "vm" }

// Run implements pipeline.Stage.
func (s *Stage) Run(ctx context.Context, ser *series.Series, r *report.Report) error {
	if !s.opts.Enabled || s.opts.Tree == "" {
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
	vm, err := s.runner.Compare(ctx, s.opts.Tree, s.opts.Baseline, patches)
	if err != nil {
		return fmt.Errorf("vm: %w", err)
	}
	r.VM = vm
	n := 0
	for i := range r.Patches {
		n += ConfirmFindings(r.Patches[i].Findings, vm)
	}
	if n > 0 && s.opts.Log != nil {
		s.opts.Log.Info("findings confirmed in the VM", "count", n)
	}
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
		// A diff damaged by a mail client is built as the analysis read
		// it: repaired.
		diff, _ := diffcheck.Repaired(p.Msg.Diff)
		out = append(out, Patch{Name: name, Diff: []byte(diff)})
	}
	return out
}

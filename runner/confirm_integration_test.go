package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/analysistest"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// TestIntegrationConfirmSeed002 runs seed 002 (ported to 6.1.192, see
// testdata/seed002/README.md) through the analysis and the VM stage, as
// `check --tree` with the runner enabled does:
//   - patch 2/2 alone takes the pipe mutex under the watch queue's
//     spinlock: watch_queue_keys prints DEBUG_ATOMIC_SLEEP's splat on the
//     patched kernel and the sleep-in-atomic finding is marked confirmed
//     with it;
//   - the v5 series as posted drops the spinlock and the RCU read lock
//     first, but wakes the readers with a _locked wake-up without the
//     wait queue's lock: lockdep_assert_held() warns in __wake_up_common();
//     that confirms the wakeup finding on that call, not the
//     sleep-in-atomic ones;
//   - the series with that wake-up corrected prints no splat, and its
//     findings stay as they were.
func TestIntegrationConfirmSeed002(t *testing.T) {
	r, tree := needIntegration(t)
	p := confirmPipeline(t, r, tree)
	// Three series, each built and booted on its own: on a cold machine
	// whose other package tests build kernels too, the first build
	// alone took 23 minutes of the 30 one series gets.
	ctx := testContextFor(t, 50*time.Minute)

	rep := runSeries(ctx, t, p, "testdata/seed002/seed002-2of2-alone-6.1.patch")
	logVM(t, rep.VM)
	var confirmed *report.Finding
	for _, pr := range rep.Patches {
		for i, f := range pr.Findings {
			if f.Rule == "sleep-in-atomic" && f.Confirmed != nil {
				confirmed = &pr.Findings[i]
			}
		}
	}
	if confirmed == nil {
		t.Fatalf("2/2 alone: no sleep-in-atomic finding confirmed; findings %s", findingLines(rep))
	}
	c := confirmed.Confirmed
	t.Logf("confirmed %s by %s (%s in %s)", confirmed.Func, c.Test, c.Kind, c.Function)
	if c.Test != "watch_queue_keys" || c.Kind != "sleep-in-atomic" ||
		!strings.Contains(c.Excerpt, "BUG: sleeping function called from invalid context") {
		t.Errorf("2/2 alone: confirmation %+v", c)
	}
	if !strings.Contains(c.Excerpt, "post_watch_notification") && !strings.Contains(c.Excerpt, "remove_watch_from_object") {
		t.Errorf("2/2 alone: the splat's stack has neither caller of post_one_notification:\n%s", c.Excerpt)
	}

	rep = runSeries(ctx, t, p, "testdata/seed002/seed002-v5-series-6.1.mbox")
	logVM(t, rep.VM)
	wq := vmTest(rep.VM, "watch_queue_keys")
	if wq == nil || wq.Patched != "crash" || !strings.Contains(wq.Splat, "__wake_up_common") {
		t.Errorf("v5 series: watch_queue_keys %+v, want the lockdep warning in __wake_up_common", wq)
	}
	// The sleep-in-atomic findings are not confirmed by that warning; the
	// wakeup finding on the _locked wake-up is.
	wake := 0
	for _, pr := range rep.Patches {
		for i, f := range pr.Findings {
			if f.Rule == "wakeup" && f.Category == "wakeup-barrier" && f.Confirmed != nil {
				wake++
				if f.Confirmed.Kind != "waitqueue-unlocked" {
					t.Errorf("v5 series: wakeup finding confirmed by %+v", f.Confirmed)
				}
				pr.Findings[i].Confirmed = nil // for noneConfirmed below
			}
		}
	}
	if wake != 1 {
		t.Errorf("v5 series: %d wakeup findings confirmed by the wait queue warning, want 1; findings %s", wake, findingLines(rep))
	}
	noneConfirmed(t, "v5 series", rep)

	rep = runSeries(ctx, t, p, "testdata/seed002/seed002-v5-fixed-6.1.mbox")
	logVM(t, rep.VM)
	if rep.VM.Status == report.VMBuildFailed || rep.VM.Status == report.VMBootFailure {
		t.Fatalf("fixed series: %s: %s", rep.VM.Status, rep.VM.Summary)
	}
	for _, tt := range rep.VM.Tests {
		if tt.Splat != "" {
			t.Errorf("fixed series: %s printed a splat on the patched kernel:\n%s", tt.Name, tt.Splat)
		}
	}
	if wq := vmTest(rep.VM, "watch_queue_keys"); wq == nil || wq.Patched != "pass" {
		t.Errorf("fixed series: watch_queue_keys %+v", wq)
	}
	noneConfirmed(t, "fixed series", rep)
}

// noneConfirmed checks that r has sleep-in-atomic risks and that no
// finding is marked confirmed.
func noneConfirmed(t *testing.T, what string, r *report.Report) {
	t.Helper()
	risks := 0
	for _, pr := range r.Patches {
		for _, f := range pr.Findings {
			if f.Rule == "sleep-in-atomic" && f.Severity == report.SeverityRisk {
				risks++
			}
			if f.Confirmed != nil {
				t.Errorf("%s: %s %s confirmed by %s (%s)", what, f.Rule, f.Func, f.Confirmed.Test, f.Confirmed.Kind)
			}
		}
	}
	if risks == 0 {
		t.Errorf("%s: no sleep-in-atomic risk left to stay unconfirmed; findings %s", what, findingLines(r))
	}
}

// vmTest returns the named test of a VM report, or nil.
func vmTest(vm *report.VMReport, name string) *report.VMTest {
	for i := range vm.Tests {
		if vm.Tests[i].Name == name {
			return &vm.Tests[i]
		}
	}
	return nil
}

// confirmPipeline is the analysis on tree with config.yaml's rule options,
// then the VM stage on r.
func confirmPipeline(t *testing.T, r *Runner, tree string) *pipeline.Pipeline {
	t.Helper()
	opts := r.opts
	opts.Enabled, opts.Tree, opts.Baseline = true, tree, "base"
	return &pipeline.Pipeline{Stages: []pipeline.Stage{analysistest.TreeStage(t, tree), &Stage{opts: opts, runner: r}}}
}

// runSeries runs p on the one series in file.
func runSeries(ctx context.Context, t *testing.T, p *pipeline.Pipeline, file string) *report.Report {
	t.Helper()
	msgs, errs := mail.Load(ctx, []string{file}, nil)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", file, errs[0])
	}
	ss := series.Assemble(msgs, series.Options{})
	if len(ss) != 1 {
		t.Fatalf("%s: %d series", file, len(ss))
	}
	rep, err := p.Run(ctx, ss[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.Errors {
		t.Errorf("%s: %s: %s", file, e.Source, e.Err)
	}
	if rep.VM == nil {
		t.Fatalf("%s: the VM stage did not run", file)
	}
	return rep
}

// findingLines lists a report's findings, one per line, for failures.
func findingLines(r *report.Report) string {
	var b strings.Builder
	for _, pr := range r.Patches {
		for _, f := range pr.Findings {
			b.WriteString("\n  " + string(f.Severity) + " " + f.Rule + " " + f.Func + ": " + f.Message)
		}
	}
	return b.String()
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/runner/kselftest"
)

// Runner compares a patched kernel with its baseline on a Backend.
type Runner struct {
	opts    Options
	backend Backend

	mu        sync.Mutex
	baselines map[string]*KernelResult
}

// New returns a Runner on backend (NewLocal(opts) when nil).
func New(opts Options, backend Backend) *Runner {
	opts = opts.WithDefaults()
	if backend == nil {
		backend = NewLocal(opts)
	}
	return &Runner{opts: opts, backend: backend, baselines: map[string]*KernelResult{}}
}

// Backend returns the runner's backend.
func (r *Runner) Backend() Backend { return r.backend }

// run calls the backend, retrying infrastructure errors.
func (r *Runner) run(ctx context.Context, req *Request) (*KernelResult, error) {
	var err error
	for try := 0; try <= r.opts.Retries; try++ {
		var kr *KernelResult
		kr, err = r.backend.Run(ctx, req)
		if err == nil {
			return kr, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.opts.Log.Warn("runner infrastructure error", "label", req.Label, "try", try+1, "err", err)
	}
	return nil, err
}

// Baseline builds and tests the unpatched kernel at ref, once per runner
// (the result is reused by later comparisons against the same commit).
func (r *Runner) Baseline(ctx context.Context, tree, ref string) (*KernelResult, error) {
	return r.baseline(ctx, tree, ref, nil)
}

// baseline is Baseline running the given selftest targets too.
func (r *Runner) baseline(ctx context.Context, tree, ref string, kselftests []kselftest.Target) (*KernelResult, error) {
	commit, err := resolveCommit(ctx, tree, ref)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(tree)
	key := abs + "@" + commit
	for _, t := range kselftests {
		key += " " + t.Name
	}
	r.mu.Lock()
	kr := r.baselines[key]
	r.mu.Unlock()
	if kr != nil {
		return kr, nil
	}
	kr, err = r.run(ctx, &Request{Tree: tree, Ref: commit, Label: "baseline", Kselftests: kselftests})
	if err != nil {
		return nil, err
	}
	if kr.Build.Status == BuildOK && kr.Boot == "ok" {
		r.mu.Lock()
		r.baselines[key] = kr
		r.mu.Unlock()
	}
	return kr, nil
}

// Compare builds tree at baseRef with patches applied, runs the suite on
// it and on the baseline, and reports regressions and metric changes. A
// refused, unappliable or failing patch is reported without any VM run.
// Errors are for a bad tree/ref or cancellation; infrastructure failures
// that survive the retries are reported as status infra-error.
func (r *Runner) Compare(ctx context.Context, tree, baseRef string, patches []Patch) (*report.VMReport, error) {
	if baseRef == "" {
		baseRef = "HEAD"
	}
	vm := &report.VMReport{Tree: tree, BaseRef: baseRef, Backend: r.backend.Name()}
	commit, err := resolveCommit(ctx, tree, baseRef)
	if err != nil {
		return nil, err
	}
	vm.BaseCommit = commit
	plan, err := r.opts.KselftestPlan(ctx, tree, commit, patches)
	if err != nil {
		return nil, err
	}
	targets := plan.Targets()
	if len(targets) > 0 && r.backend.Name() != "local" {
		plan.Notes = append(plan.Notes, fmt.Sprintf("the kernel selftests run on the local backend only (backend %s)", r.backend.Name()))
		plan.Chosen, targets = nil, nil
	}
	vm.Kselftests = planLines(plan)
	patched, err := r.run(ctx, &Request{Tree: tree, Ref: commit, Patches: patches, Label: "patched", Kselftests: targets})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		vm.Status, vm.Build = report.VMInfraError, "not-run"
		vm.Summary = "runner failure (infrastructure), no result"
		vm.Notes = append(vm.Notes, err.Error())
		return vm, nil
	}
	fillBuild(vm, patched)
	if patched.Build.Status != BuildOK {
		return vm, nil
	}
	base, err := r.baseline(ctx, tree, commit, targets)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		vm.Status = report.VMInfraError
		vm.Summary = "baseline run failed (infrastructure), no comparison"
		vm.Notes = append(vm.Notes, err.Error())
		return vm, nil
	}
	compareKernels(vm, base, patched)
	return vm, nil
}

// fillBuild copies the patched build outcome into vm.
func fillBuild(vm *report.VMReport, k *KernelResult) {
	b := k.Build
	vm.BuildLog = b.Log
	vm.ConfigMissing = b.ConfigMissing
	vm.BuildSeconds = b.Duration.Seconds()
	switch b.Status {
	case BuildOK:
		vm.Build = "ok"
	case BuildFailed:
		vm.Build, vm.Status, vm.BuildErrors = "failed", report.VMBuildFailed, b.Errors
		vm.Summary = "Build failed! (no VM run)"
	case BuildApplyFailed:
		vm.Build, vm.Status, vm.BuildErrors = "apply-failed", report.VMApplyFailed, b.Errors
		vm.Summary = "the patch does not apply (no VM run)"
	case BuildRefused:
		vm.Build, vm.Status = "refused", report.VMRefused
		for _, r := range b.Refusals {
			vm.Refusals = append(vm.Refusals, r.Error())
		}
		vm.Summary = "patch refused: it changes host build code (no build, no VM run)"
	}
}

// compareKernels fills the test table, regressions and summary.
func compareKernels(vm *report.VMReport, base, patched *KernelResult) {
	vm.Accel = patched.Accel
	vm.PatchedVMSeconds = patched.VMTime.Seconds()
	vm.BaselineVMSeconds = base.VMTime.Seconds()
	vm.Console = patched.Console
	for _, p := range patched.Problems {
		vm.Notes = append(vm.Notes, "patched results channel: "+p)
	}
	for _, n := range patched.Notes {
		vm.Notes = append(vm.Notes, "patched: "+n)
	}
	for _, n := range base.Notes {
		vm.Notes = append(vm.Notes, "baseline: "+n)
	}
	if base.Boot != "ok" {
		vm.Notes = append(vm.Notes, "the baseline kernel did not boot: "+firstLine(base.BootDetail))
	}
	if patched.Boot != "ok" {
		vm.Status, vm.BootDetail = report.VMBootFailure, patched.BootDetail
	}
	names := []string{}
	seen := map[string]bool{}
	for _, k := range []*KernelResult{patched, base} {
		for _, t := range k.Tests {
			if !seen[t.Name] {
				seen[t.Name] = true
				names = append(names, t.Name)
			}
		}
	}
	minChange := minMetricChange
	if patched.Accel == "tcg" || base.Accel == "tcg" {
		minChange = minMetricChangeTCG
	}
	defer func() {
		vm.Notes = append(vm.Notes, fmt.Sprintf("metrics: median [min..max] of the runs; a change under %.0f%% or within either kernel's own spread is noise", minChange))
	}()
	var regressed []string
	for _, n := range names {
		bt, pt := base.Test(n), patched.Test(n)
		t := report.VMTest{Name: n, Baseline: string(NotRun), Patched: string(NotRun)}
		if strings.HasPrefix(n, kselftestPrefix) {
			t.Suite = "kselftest"
		}
		if n == "boot" {
			t.Baseline = string(Pass) // no boot splat on the baseline unless it has its own entry
		}
		if bt != nil {
			t.Baseline, t.BaselineReason = string(bt.Verdict), bt.Reason
		}
		if pt != nil {
			t.Patched, t.Reason = string(pt.Verdict), pt.Reason
			if len(pt.Splats) > 0 {
				var texts []string
				for _, s := range pt.Splats {
					texts = append(texts, s.Text)
				}
				t.Splat = strings.Join(texts, "\n\n")
			}
		}
		bv, pv := Verdict(t.Baseline), Verdict(t.Patched)
		t.Regression = bv == Pass && (pv == Fail || pv == Hang || pv == Crash || pv == BootFailure)
		if t.Regression && (pt != nil && pt.Flaky || bt != nil && bt.Flaky) {
			t.Regression = false
			t.Detail = "known to fail at random under TCG (kselftest table): not counted as a regression"
		}
		t.Fixed = pv == Pass && (bv == Fail || bv == Hang || bv == Crash)
		if bt != nil && pt != nil {
			for _, pm := range pt.Metrics {
				for _, bm := range bt.Metrics {
					if bm.Name == pm.Name {
						t.Metrics = append(t.Metrics, compareMetric(pm.Name, pm.Unit, pm.Better, bm.Values, pm.Values, minChange))
					}
				}
			}
			var worse []string
			for _, m := range t.Metrics {
				if m.Verdict == "worse" {
					worse = append(worse, fmt.Sprintf("%s %+.0f%%", m.Name, m.ChangePct))
				}
			}
			if len(worse) > 0 {
				t.Detail = "metric worse beyond run-to-run spread: " + strings.Join(worse, ", ")
			}
		}
		if t.Regression {
			vm.Regressions++
			regressed = append(regressed, fmt.Sprintf("%s %s", n, t.Patched))
		}
		vm.Tests = append(vm.Tests, t)
	}
	switch {
	case vm.Status == report.VMBootFailure && base.Boot != "ok":
		vm.Summary = "the patched kernel did not boot (neither did the baseline)"
	case vm.Status == report.VMBootFailure:
		vm.Summary = "the patched kernel did not boot (baseline did)"
	case vm.Regressions > 0:
		vm.Status = report.VMRegression
		vm.Summary = fmt.Sprintf("%d regression(s): %s", vm.Regressions, strings.Join(regressed, ", "))
	default:
		vm.Status = report.VMOK
		vm.Summary = fmt.Sprintf("no regressions (%d tests on baseline and patched kernels)", len(vm.Tests))
	}
}

// planLines are the selftest plan's lines for the report: each chosen
// target with why, each target the budget dropped, the notes.
func planLines(p *kselftest.Plan) []string {
	var out []string
	for _, c := range p.Chosen {
		out = append(out, fmt.Sprintf("%s: %s", c.Target.Name, strings.Join(c.Reasons, "; ")))
	}
	for _, c := range p.Dropped {
		out = append(out, fmt.Sprintf("%s: dropped, over the time budget of %s (~%ds)", c.Target.Name, p.Budget, c.Target.Seconds))
	}
	for _, n := range p.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

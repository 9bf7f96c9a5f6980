package report

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
)

// VM statuses (VMReport.Status).
const (
	VMOK          = "ok"           // suite ran on both kernels, no regression
	VMRegression  = "regression"   // a test went from pass to fail/hang/crash
	VMBuildFailed = "build-failed" // the patched kernel did not build
	VMRefused     = "refused"      // the patch touches host code; not built
	VMApplyFailed = "apply-failed" // the patch does not apply to the tree
	VMBootFailure = "boot-failure" // the patched kernel did not boot
	VMInfraError  = "infra-error"  // the runner itself failed (after retries)
)

// VMReport is the VM regression-suite part of a report (filled by runner).
type VMReport struct {
	// Tree is the tree name or path tested.
	Tree string `json:"tree"`
	// Build is "ok", "failed", "refused", "apply-failed" (patched kernel).
	Build string `json:"build"`
	// BuildErrors are the trimmed compiler error lines when the build failed
	// (or git apply's message when the patch did not apply).
	BuildErrors []string `json:"build_errors,omitempty"`
	// Tests are per-test comparisons, baseline vs patched.
	Tests []VMTest `json:"tests,omitempty"`

	// Status is one of the VM* constants.
	Status string `json:"status"`
	// Summary is a one-line summary of the outcome.
	Summary string `json:"summary"`
	// Backend names the runner backend ("local").
	Backend string `json:"backend,omitempty"`
	// BaseRef and BaseCommit are the baseline the patch was applied to.
	BaseRef    string `json:"base_ref,omitempty"`
	BaseCommit string `json:"base_commit,omitempty"`
	// Accel is the QEMU accelerator ("kvm" or "tcg").
	Accel string `json:"accel,omitempty"`
	// Regressions counts tests that went from pass to fail/hang/crash.
	Regressions int `json:"regressions"`
	// Refusals say why the patch was not built (host code, bad paths).
	Refusals []string `json:"refusals,omitempty"`
	// BootDetail explains a boot failure of the patched kernel.
	BootDetail string `json:"boot_detail,omitempty"`
	// ConfigMissing lists config fragment options that did not survive
	// into the kernel's .config.
	ConfigMissing []string `json:"config_missing,omitempty"`
	// BuildSeconds is the patched kernel's build time (0 when cached).
	BuildSeconds float64 `json:"build_seconds"`
	// BaselineVMSeconds and PatchedVMSeconds are the boot + suite times.
	BaselineVMSeconds float64 `json:"baseline_vm_seconds,omitempty"`
	PatchedVMSeconds  float64 `json:"patched_vm_seconds,omitempty"`
	// BuildLog and Console are log files on the runner's machine.
	BuildLog string `json:"build_log,omitempty"`
	Console  string `json:"console,omitempty"`
	// Notes are other remarks (damaged result frames, retries).
	Notes []string `json:"notes,omitempty"`
	// Kselftests say which of the kernel's own selftest targets ran and
	// why ("futex: kernel/futex/core.c: ..."), and which the time budget
	// dropped.
	Kselftests []string `json:"kselftests,omitempty"`
}

// VMTest is one suite test's result on baseline and patched kernels.
type VMTest struct {
	Name string `json:"name"`
	// Suite is "kselftest" for the kernel's own selftests (Name is then
	// "kselftest/<target>/<program>[: <TAP test point>]"), "" for the
	// runner's suite.
	Suite    string `json:"suite,omitempty"`
	Baseline string `json:"baseline"`
	Patched  string `json:"patched"`
	// Regression is set for pass -> fail/hang/crash.
	Regression bool `json:"regression,omitempty"`
	// Fixed is set for fail/hang/crash -> pass.
	Fixed bool `json:"fixed,omitempty"`
	// Splat is the kernel splat text attributed to the test, if any
	// (patched kernel).
	Splat string `json:"splat,omitempty"`
	// Detail is a metric comparison or other remark.
	Detail string `json:"detail,omitempty"`
	// Reason explains the patched verdict; BaselineReason the baseline's.
	Reason         string `json:"reason,omitempty"`
	BaselineReason string `json:"baseline_reason,omitempty"`
	// Metrics compare the test's metrics over the runs.
	Metrics []VMMetric `json:"metrics,omitempty"`
}

// VMMetric compares one metric between the kernels.
type VMMetric struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Better is "lower" or "higher".
	Better   string     `json:"better"`
	Baseline MetricStat `json:"baseline"`
	Patched  MetricStat `json:"patched"`
	// ChangePct is the change of the median, in percent.
	ChangePct float64 `json:"change_pct"`
	// Verdict is "noise" (the spreads overlap), "better" or "worse".
	Verdict string `json:"verdict"`
}

// MetricStat summarises a metric's runs: median and spread.
type MetricStat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

func (m MetricStat) String() string {
	return fmt.Sprintf("%s [%s..%s]", num(m.Median), num(m.Min), num(m.Max))
}

func num(f float64) string {
	switch {
	case f == 0:
		return "0"
	case f >= 100 || f <= -100:
		return fmt.Sprintf("%.0f", f)
	case f >= 1 || f <= -1:
		return fmt.Sprintf("%.2f", f)
	default:
		return fmt.Sprintf("%.3g", f)
	}
}

// VMTextOptions choose how much of the VM section Text renders.
type VMTextOptions struct {
	// Brief lists only the tests whose result changed or that carry a
	// remark (regression, fix, detail, splat, a metric that moved) and
	// counts the rest in one line; build errors are cut at 20 lines. For
	// mail.
	Brief bool
}

// maxBriefErrors bounds the build error lines of a brief VM section.
const maxBriefErrors = 20

// maxSplatLines bounds each splat quoted in the VM section.
const maxSplatLines = 30

// maxDetailLines bounds the boot failure detail (a console excerpt)
// quoted in the VM section; maxQuotedLine bounds each quoted guest line.
const (
	maxDetailLines = 40
	maxQuotedLine  = 240
)

// excerpt returns at most n lines of guest text s, each at most
// maxQuotedLine bytes (cut on a UTF-8 boundary, ending in "..."): what a
// reply quotes of a console however much the guest printed.
func excerpt(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if len(l) > maxQuotedLine {
			cut := maxQuotedLine
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "..."
		}
		lines[i] = l
	}
	return lines
}

// Text renders the VM section as plain text for terminals (the test
// command, the check text format). It is the one text renderer of the
// section: the reply quotes TextWith(VMTextOptions{Brief: true}). Fields
// that are one line stay one line (newlines become spaces); control
// characters are left to the caller (escape or strip them per line).
func (v *VMReport) Text() string { return v.TextWith(VMTextOptions{}) }

// KselftestTally counts the kernel selftest results per verdict on both
// kernels ("baseline 10 pass, 1 skip; patched 9 pass, 1 fail, 1 skip"),
// "" when none ran.
func (v *VMReport) KselftestTally() string {
	order := []string{"pass", "fail", "hang", "crash", "skip", "not-run", "boot-failure"}
	count := func(get func(VMTest) string) string {
		n := map[string]int{}
		for _, t := range v.Tests {
			if t.Suite == "kselftest" {
				n[get(t)]++
			}
		}
		var parts []string
		for _, k := range order {
			if n[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
				delete(n, k)
			}
		}
		for k, c := range n {
			parts = append(parts, fmt.Sprintf("%d %s", c, flat(k)))
		}
		sort.Strings(parts[len(parts)-len(n):])
		return strings.Join(parts, ", ")
	}
	base := count(func(t VMTest) string { return t.Baseline })
	if base == "" {
		return ""
	}
	return "baseline " + base + "; patched " + count(func(t VMTest) string { return t.Patched })
}

// TextWith renders the VM section as plain text with opts.
func (v *VMReport) TextWith(opts VMTextOptions) string {
	var b strings.Builder
	if v.Summary != "" {
		fmt.Fprintf(&b, "VM regression suite: %s\n", flat(v.Summary))
	} else {
		fmt.Fprintf(&b, "VM regression suite: build %s\n", orDash(flat(v.Build)))
	}
	where := flat(v.Tree)
	if v.BaseCommit != "" {
		where += " at " + shortSHA(flat(v.BaseCommit))
		if v.BaseRef != "" && v.BaseRef != v.BaseCommit {
			where += " (" + flat(v.BaseRef) + ")"
		}
	}
	if where != "" {
		fmt.Fprintf(&b, "Tree: %s\n", where)
	}
	errs := v.BuildErrors
	if opts.Brief && len(errs) > maxBriefErrors {
		errs = append(append([]string(nil), errs[:maxBriefErrors]...), fmt.Sprintf("... (%d more)", len(errs)-maxBriefErrors))
	}
	indented := func(lines []string) {
		for _, l := range lines {
			fmt.Fprintf(&b, "    %s\n", flat(l))
		}
	}
	switch v.status() {
	case VMRefused:
		b.WriteString("Not built: the patch changes code that would run on the build host:\n")
		indented(v.Refusals)
		return b.String()
	case VMApplyFailed:
		b.WriteString("Failed to apply!\n")
		indented(errs)
		return b.String()
	case VMBuildFailed:
		b.WriteString("Build failed! Errors:\n")
		indented(errs)
		return b.String()
	case VMInfraError:
		indented(v.Notes)
		return b.String()
	}
	b.WriteString("Build OK!")
	if v.Accel != "" {
		fmt.Fprintf(&b, " QEMU %s", flat(v.Accel))
	}
	if v.BuildSeconds > 0 {
		fmt.Fprintf(&b, ", rebuilt in %.1f s", v.BuildSeconds)
	}
	if v.PatchedVMSeconds > 0 {
		fmt.Fprintf(&b, ", boot + suite %.1f s", v.PatchedVMSeconds)
	}
	b.WriteString("\n")
	if v.Status == VMBootFailure {
		b.WriteString("Boot failed!\n")
		for _, l := range excerpt(v.BootDetail, maxDetailLines) {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	if len(v.ConfigMissing) > 0 {
		fmt.Fprintf(&b, "Config options that did not survive: %s\n", flat(strings.Join(v.ConfigMissing, ", ")))
	}
	if len(v.Kselftests) > 0 {
		b.WriteString("Kernel selftests (tools/testing/selftests of the tree, chosen by the files the patch touches):\n")
		for _, l := range v.Kselftests {
			fmt.Fprintf(&b, "    %s\n", flat(l))
		}
	}
	if t := v.KselftestTally(); t != "" {
		fmt.Fprintf(&b, "Kernel selftest results: %s\n", t)
	}
	var shown []VMTest
	for _, t := range v.Tests {
		if !opts.Brief || !t.unchanged() {
			shown = append(shown, t)
		}
	}
	if len(shown) > 0 {
		w := 4
		for _, t := range shown {
			w = max(w, len(flat(t.Name)))
		}
		// Padded columns, without the padding at the end of a line.
		row := func(format string, args ...any) {
			b.WriteString(strings.TrimRight(fmt.Sprintf(format, args...), " ") + "\n")
		}
		row("\n    %-*s  %-12s  %-12s", w, "test", "baseline", "patched")
		for _, t := range shown {
			mark := ""
			if t.Regression {
				mark = "  <-- REGRESSION"
			} else if t.Fixed {
				mark = "  (fixed)"
			}
			row("    %-*s  %-12s  %-12s%s", w, flat(t.Name), orDash(flat(t.Baseline)), orDash(flat(t.Patched)), mark)
			if t.Patched != "pass" && t.Reason != "" {
				fmt.Fprintf(&b, "    %-*s  %s\n", w, "", flat(t.Reason))
			}
			if t.Detail != "" {
				fmt.Fprintf(&b, "    %-*s  %s\n", w, "", flat(t.Detail))
			}
			for _, m := range t.Metrics {
				fmt.Fprintf(&b, "    %-*s  %s: %s -> %s %s (%+.1f%%, %s)\n", w, "", flat(m.Name),
					m.Baseline, m.Patched, flat(m.Unit), m.ChangePct, flat(m.Verdict))
			}
		}
	}
	if n := len(v.Tests) - len(shown); n > 0 {
		fmt.Fprintf(&b, "    %s unchanged (same result before and after the patch)\n", textfmt.Plural(n, "test", "tests"))
	}
	for _, t := range shown {
		if t.Splat == "" {
			continue
		}
		fmt.Fprintf(&b, "\nKernel report while %s ran (patched kernel):\n", flat(t.Name))
		for _, l := range excerpt(t.Splat, maxSplatLines) {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	for _, n := range v.Notes {
		fmt.Fprintf(&b, "Note: %s\n", flat(n))
	}
	return b.String()
}

// status is Status, or for reports made without one the outcome Build
// names.
func (v *VMReport) status() string {
	if v.Status != "" {
		return v.Status
	}
	switch v.Build {
	case "failed":
		return VMBuildFailed
	case "refused":
		return VMRefused
	case "apply-failed":
		return VMApplyFailed
	}
	return ""
}

// unchanged reports a test with the same result on both kernels and
// nothing to say about it.
func (t VMTest) unchanged() bool {
	if t.Regression || t.Fixed || t.Detail != "" || t.Splat != "" || t.Baseline != t.Patched {
		return false
	}
	for _, m := range t.Metrics {
		if m.Verdict != "noise" {
			return false
		}
	}
	return true
}

// flat keeps a field that should be one line on one line.
func flat(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", " "), "\n", " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

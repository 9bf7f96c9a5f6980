package runner

import (
	"context"
	"time"

	"github.com/autosel-bot/autosel-bot/runner/kselftest"
)

// Backend builds a kernel for a Request and runs the suite in it. The
// local backend (NewLocal) does both on this machine; a distributed
// backend would ship the Request elsewhere and return the same result.
type Backend interface {
	// Name names the backend for reports ("local").
	Name() string
	// Run builds and tests req. A refused, unappliable or failing build
	// and every test verdict are results; the error is for infrastructure
	// problems only (QEMU could not start, disk full...), which the
	// Runner retries.
	Run(ctx context.Context, req *Request) (*KernelResult, error)
}

// Patch is one patch to apply, in git's diff format.
type Patch struct {
	// Name identifies the patch in messages (subject or file name).
	Name string `json:"name"`
	// Diff is the patch text (git format-patch or plain diff).
	Diff []byte `json:"-"`
}

// Request is one kernel to build and test.
type Request struct {
	// Tree is a git checkout; it is never modified.
	Tree string `json:"tree"`
	// Ref is the commit (or ref) the patches apply to.
	Ref string `json:"ref"`
	// Patches are applied in order; none for the baseline.
	Patches []Patch `json:"patches,omitempty"`
	// Label names the kernel in logs and progress ("baseline", "patched").
	Label string `json:"label"`
	// Tests are the suite tests to run (nil: Options.Tests).
	Tests []Test `json:"-"`
	// Kselftests are the kernel selftest targets to build from the tree
	// and run next to the suite (Options.KselftestPlan chooses them).
	Kselftests []kselftest.Target `json:"kselftests,omitempty"`
}

// KernelResult is the outcome for one kernel.
type KernelResult struct {
	// Label is the request's label.
	Label string `json:"label"`
	// Build is the build outcome.
	Build BuildResult `json:"build"`
	// Boot is "ok", "boot-failure" or "" when no VM ran.
	Boot string `json:"boot,omitempty"`
	// BootDetail explains a boot failure (console tail, splat).
	BootDetail string `json:"boot_detail,omitempty"`
	// Accel is the accelerator used ("kvm" or "tcg").
	Accel string `json:"accel,omitempty"`
	// VMTime is the wall time from QEMU start to exit.
	VMTime time.Duration `json:"vm_time,omitempty"`
	// Tests are the per-test results in suite order.
	Tests []TestResult `json:"tests,omitempty"`
	// Problems are results-channel problems (damaged frames).
	Problems []string `json:"problems,omitempty"`
	// Notes are remarks on what ran (selftests that did not build or
	// could not run).
	Notes []string `json:"notes,omitempty"`
	// Console is the kernel console log file of the run.
	Console string `json:"console,omitempty"`
}

// Test returns the result for the named test, or nil.
func (k *KernelResult) Test(name string) *TestResult {
	for i := range k.Tests {
		if k.Tests[i].Name == name {
			return &k.Tests[i]
		}
	}
	return nil
}

package report

// VMReport is the VM regression-suite part of a report (filled by runner).
type VMReport struct {
	// Tree is the tree name or path tested.
	Tree string `json:"tree"`
	// Build is "ok" or "failed".
	Build string `json:"build"`
	// BuildErrors are the trimmed compiler error lines when the build failed.
	BuildErrors []string `json:"build_errors,omitempty"`
	// Tests are per-test comparisons, baseline vs patched.
	Tests []VMTest `json:"tests,omitempty"`
}

// VMTest is one suite test's result on baseline and patched kernels.
type VMTest struct {
	Name     string `json:"name"`
	Baseline string `json:"baseline"`
	Patched  string `json:"patched"`
	// Regression is set for pass -> fail/hang/crash.
	Regression bool `json:"regression,omitempty"`
	// Splat is the kernel splat text attributed to the test, if any.
	Splat string `json:"splat,omitempty"`
	// Detail is a metric comparison or other remark.
	Detail string `json:"detail,omitempty"`
}

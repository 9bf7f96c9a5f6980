// Package rulestest runs rule families in tests, in the spirit of
// golang.org/x/tools/go/analysis/analysistest: Pass and Run build the one
// kind of Pass the pipeline builds (rules.NewPass) over a patch, with or
// without a tree; RunCases runs a family's case files (case.go: the tree,
// patch and reverse modes, runcase.go) and, with -update, rewrites their
// WANT lines (rewrite.go). Detail lines under a WANT line check what the
// finding says (its place, message, explanation, evidence, old lines and
// chain: detail.go); NOTE lines the pass's notes; "seed:" that the patch
// is a seed thread's diff (seed.go).
package rulestest

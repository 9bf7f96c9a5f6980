// Package rulestest runs rule families in tests, in the spirit of
// golang.org/x/tools/go/analysis/analysistest: Pass and Run build the one
// kind of Pass the pipeline builds (rules.NewPass) over a patch, with or
// without a tree; RunCases runs a family's case files (case.go) and, with
// -update, rewrites their WANT lines from the current output.
package rulestest

package sleep

import (
	"fmt"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// sleepRule builds the rule with the built-in tables.
func sleepRule(t testing.TB) *rules.Rule {
	t.Helper()
	r, err := New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sleepModel compiles the rule's built-in tables.
func sleepModel(t testing.TB) *lockctx.Model {
	t.Helper()
	var tb tables
	if err := rules.LoadTables("sleep", nil, &tb); err != nil {
		t.Fatal(err)
	}
	var locks lockmodel.Table
	if err := rules.LoadTables("locks", nil, &locks); err != nil {
		t.Fatal(err)
	}
	m, err := compile(&tb, &locks)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runSleepPatch runs the rule on a patch: patch-only when ix is nil, else
// applied onto tree (a directory) with ix as the base index.
func runSleepPatch(t testing.TB, patch, tree string, ix *index.Index) ([]report.Finding, []string) {
	t.Helper()
	return rulestest.Run(t, sleepRule(t), patch, tree, ix)
}

// casePatch returns the patch of the case file testdata/cases/name.txtar.
func casePatch(tb testing.TB, name string) string {
	tb.Helper()
	c, err := rulestest.ParseCase(filepath.Join("testdata", "cases", name+".txtar"))
	if err != nil {
		tb.Fatal(err)
	}
	return c.Patch
}

// kernelIndexFor returns the shared Linux 6.1 tree and its index.
func kernelIndexFor(t testing.TB) (string, *index.Index) {
	t.Helper()
	return rulestest.Kernel(t)
}

// describe renders findings for failure messages.
func describe(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s:%d %s\n    %s\n", f.Severity, f.File, f.Line, f.Message, f.Explanation)
	}
	return b.String()
}

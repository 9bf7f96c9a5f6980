package wakeup

import (
	"path/filepath"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// runWakeupDiff runs the rule over pass, or over diff patch-only when
// pass is nil, and returns the findings in report order.
func runWakeupDiff(t *testing.T, diff string, pass *rules.Pass) []report.Finding {
	t.Helper()
	rule, err := New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pass == nil {
		pass = rulestest.Pass(t, diff, "", nil)
	}
	return rulestest.RunPass(t, rule, pass)
}

// kernelIndexFor returns the shared Linux 6.1 tree and its index.
func kernelIndexFor(tb testing.TB) (string, *index.Index) {
	tb.Helper()
	return rulestest.Kernel(tb)
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

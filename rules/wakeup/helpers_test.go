package wakeup

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"

	"github.com/autosel-bot/autosel-bot/report"
)

// want matches findings: every non-empty field must match (Key and Func
// exactly, Message by substring).
type wantFinding struct {
	rule, sev, fn, key, msg string
}

func (w wantFinding) match(f report.Finding) bool {
	return (w.rule == "" || f.Category == w.rule) &&
		(w.sev == "" || string(f.Severity) == w.sev) &&
		(w.fn == "" || f.Func == w.fn) &&
		(w.key == "" || f.Key == w.key) &&
		(w.msg == "" || strings.Contains(f.Message, w.msg))
}

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

func dumpFindings(t *testing.T, fs []report.Finding) {
	t.Helper()
	for _, f := range fs {
		t.Logf("  %s %s %s:%d %s() [%s] %s", f.Severity, f.Category, f.File, f.Line, f.Func, f.Key, f.Message)
	}
}

func checkFindings(t *testing.T, fs []report.Finding, wants, nots []wantFinding) {
	t.Helper()
	bad := false
	for _, w := range wants {
		found := false
		for _, f := range fs {
			if w.match(f) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing finding %+v", w)
			bad = true
		}
	}
	for _, w := range nots {
		for _, f := range fs {
			if w.match(f) {
				t.Errorf("unexpected finding %+v: %s %s %s", w, f.Category, f.Func, f.Message)
				bad = true
			}
		}
	}
	if bad || testing.Verbose() {
		dumpFindings(t, fs)
	}
}
